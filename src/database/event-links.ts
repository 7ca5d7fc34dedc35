import type { EntityManager } from 'typeorm';
import type { ChangeKind } from '../writes/change-kinds';
import type { TrackedChange } from '../writes/change-tracker';

/*
 * The links between events and the records they show (`events.venue_id`,
 * `event_organizers`, `event_terms`), as the linked kinds need them: counts,
 * `has_events` and `only_with_upcoming`, unlinking, touching, and the events
 * a change of a linked record concerns. This is everything venues/,
 * organizers/, terms/ and posts/ know of events: written against the tables,
 * not the event entities, so those folders sit below events/
 * (docs/architecture.md, "Dependencies"). Identifiers are fixed names; values
 * are always parameters.
 */

/** The events table, for callers that take a TypeORM target (resolved by table name). */
export const EVENTS_TABLE = 'events';

/** A kind events link to, by how the link is stored. */
export type EventLinkKind = 'venue' | 'organizer' | 'term';

/**
 * Per kind: the link rows of one record (`record` is its ID column), and the
 * linked events' IDs in them. A venue's link is a column of the event itself.
 */
const LINKS: Record<EventLinkKind, { from: string; record: string; event: string }> = {
  venue: { from: 'events e', record: 'e.venue_id', event: 'e.id' },
  organizer: { from: 'event_organizers l', record: 'l.organizer_id', event: 'l.event_id' },
  term: { from: 'event_terms l', record: 'l.term_id', event: 'l.event_id' },
};

/**
 * SQL: whether the record whose ID is the expression `outerId` is linked by an
 * event (aliased `e`, columns by their database names) that meets
 * `condition`. One index range over the link rows of the record, then each
 * event by its key.
 */
export function linkedEventExists(kind: EventLinkKind, outerId: string, condition: string): string {
  const { from, record, event } = LINKS[kind];
  const events = kind === 'venue' ? '' : ` INNER JOIN events e ON e.id = ${event}`;
  return `EXISTS (SELECT 1 FROM ${from}${events} WHERE ${record} = ${outerId} AND (${condition}))`;
}

/** SQL: the IDs of the terms linked by the event whose ID is the parameter `:${parameter}`. */
export function termsOfEventSql(parameter: string): string {
  return `SELECT l.term_id FROM event_terms l WHERE l.event_id = :${parameter}`;
}

/** The IDs of the events that link the record (one index range). */
export async function linkedEventIds(
  manager: EntityManager,
  kind: EventLinkKind,
  id: number,
): Promise<number[]> {
  const { from, record, event } = LINKS[kind];
  const rows = (await manager.query(
    `SELECT ${event} AS id FROM ${from} WHERE ${record} = ?`,
    [id],
  )) as Array<{ id: number | string }>;
  return rows.map((row) => Number(row.id));
}

/** Removes the record from every event that links it (trash and delete, docs/api.md §7). */
export async function unlinkEvents(
  manager: EntityManager,
  kind: EventLinkKind,
  id: number,
): Promise<void> {
  const sql = {
    venue: 'UPDATE events SET venue_id = NULL WHERE venue_id = ?',
    organizer: 'DELETE FROM event_organizers WHERE organizer_id = ?',
    term: 'DELETE FROM event_terms WHERE term_id = ?',
  };
  await manager.query(sql[kind], [id]);
}

/**
 * A venue or organizer is written into its events' iCalendar (LOCATION,
 * ORGANIZER): when it changes, each event that links it gets a new revision
 * (SEQUENCE) and linked modification time (LAST-MODIFIED, docs/api.md §14),
 * in the same transaction, in one UPDATE over the link's index. Neither is
 * part of the JSON record, which embeds the linked record and is announced
 * under its own kind (docs/sync.md).
 */
export async function touchLinkedEvents(
  manager: EntityManager,
  kind: 'venue' | 'organizer',
  id: number,
  now: number,
): Promise<void> {
  const events =
    kind === 'venue'
      ? 'venue_id = ?'
      : 'id IN (SELECT event_id FROM event_organizers WHERE organizer_id = ?)';
  await manager.query(
    `UPDATE events SET revision = revision + 1, linked_modified_at = ? WHERE ${events}`,
    [now, id],
  );
}

/**
 * Locks an event's row for the rest of the transaction (MySQL/MariaDB; SQLite
 * writes one at a time), so two writes of one event cannot both count from
 * the same state.
 */
export async function lockEventRow(manager: EntityManager, id: number): Promise<void> {
  if (manager.connection.options.type !== 'mysql') return;
  await manager.query('SELECT id FROM events WHERE id = ? FOR UPDATE', [id]);
}

/** One entry per link of these events that have this status, its term's ID (≤ 500 events). */
export async function termIdsOfEventsWithStatus(
  manager: EntityManager,
  eventIds: number[],
  status: string,
): Promise<number[]> {
  if (eventIds.length === 0) return [];
  const rows = (await manager.query(
    'SELECT l.term_id AS termId FROM event_terms l INNER JOIN events e ON e.id = l.event_id' +
      ` WHERE l.event_id IN (${eventIds.map(() => '?').join(', ')}) AND e.status = ?`,
    [...eventIds, status],
  )) as Array<{ termId: number | string }>;
  return rows.map((row) => Number(row.termId));
}

/**
 * The events that link the record, as `updated` changes: read inside the
 * write, before it unlinks them. With `via`, they are announced only
 * because who may see the linked record changed.
 */
export async function linkedEventChanges(
  manager: EntityManager,
  kind: Exclude<ChangeKind, 'event'>,
  id: number,
  options: { via?: boolean } = {},
): Promise<TrackedChange[]> {
  const ids = await linkedEventIds(manager, kind === 'category' || kind === 'tag' ? 'term' : kind, id);
  return ids.map((eventId) => ({
    kind: 'event',
    id: eventId,
    action: 'updated',
    ...(options.via ? { via: { kind, id } } : {}),
  }));
}
