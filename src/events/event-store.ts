import { EntityManager, In } from 'typeorm';
import { loadPlainPosts, loadPosts, PostTable } from '../posts/post-store';
import { Term } from '../terms/entities/term.entity';
import { CATEGORIES, TAGS, TaxonomyInfo } from '../terms/taxonomies';
import { EventOrganizer } from './entities/event-organizer.entity';
import { EventTerm } from './entities/event-term.entity';
import { EventTranslation } from './entities/event-translation.entity';
import { insertRows } from '../database/entity-inserts';
import { lockRow } from '../database/row-lock';
import { Event } from './entities/event.entity';
import { EVENT_RECORD_COLUMNS, EVENT_RECORD_TEXTS, type EventRecordRow } from './event.mapper';

/*
 * Storage of events: the event row, one translation row per language, and
 * the link rows to organizers and terms. Writers pass their transaction's manager.
 */

/** An event's links as a write resolved them; undefined = left unchanged. */
export interface LinkChanges {
  venueId: number | null | undefined;
  organizerIds: number[] | undefined;
  categoryIds: number[] | undefined;
  tagIds: number[] | undefined;
}

/** Events as posts: their tables and the names their texts go by. */
export const EVENTS: PostTable<Event, EventTranslation> = {
  entity: Event,
  translation: EventTranslation,
  ownerKey: 'eventId',
  titleField: 'title',
  titleWire: 'title',
  slugFallback: 'event',
  notFound: 'rest-event-not-found',
};

/** Events with their translations by ID, in two queries side by side. */
export function loadEvents(manager: EntityManager, ids: number[]): Promise<Map<number, Event>> {
  return loadPosts(manager, EVENTS, ids);
}

/**
 * What the records of events are mapped from, by ID, as plain rows (no
 * entities, and only the columns records show): for reads of many records.
 */
export function loadEventRows(
  manager: EntityManager,
  ids: number[],
): Promise<Map<number, EventRecordRow>> {
  return loadPlainPosts(manager, EVENTS, EVENT_RECORD_COLUMNS, EVENT_RECORD_TEXTS, ids);
}

/**
 * Replaces the links the write sent; a category change leaves the tags alone
 * and vice versa. Term links change by difference, with the current ones read
 * without locks (the event row is locked): a DELETE over a subquery of
 * `terms` would share-lock every term of the taxonomy and deadlock with
 * concurrent writers of other events. `isNew`: the event has no links yet.
 */
export async function writeEventLinks(
  manager: EntityManager,
  eventId: number,
  links: LinkChanges,
  isNew = false,
): Promise<void> {
  if (links.organizerIds) {
    if (!isNew) await manager.delete(EventOrganizer, { eventId });
    if (links.organizerIds.length > 0) {
      await insertRows(
        manager,
        EventOrganizer,
        ['eventId', 'organizerId', 'position'],
        links.organizerIds.map((organizerId, position) => ({ eventId, organizerId, position })),
      );
    }
  }
  const changes = (
    [
      [CATEGORIES, links.categoryIds],
      [TAGS, links.tagIds],
    ] as Array<[TaxonomyInfo, number[] | undefined]>
  ).filter((change): change is [TaxonomyInfo, number[]] => change[1] !== undefined);
  if (changes.length === 0) return;
  const linked = isNew ? [] : await linkedTerms(manager, eventId);
  // Both taxonomies' differences in one DELETE and one multi-row INSERT.
  const stale: number[] = [];
  const added: number[] = [];
  for (const [info, termIds] of changes) {
    const wanted = new Set(termIds);
    const current = new Set(
      linked.filter((l) => l.taxonomy === info.taxonomy).map((l) => l.termId),
    );
    stale.push(...[...current].filter((id) => !wanted.has(id)));
    added.push(...[...wanted].filter((id) => !current.has(id)));
  }
  if (stale.length > 0) await manager.delete(EventTerm, { eventId, termId: In(stale) });
  await insertRows(
    manager,
    EventTerm,
    ['eventId', 'termId'],
    added.map((termId) => ({ eventId, termId })),
  );
}

async function linkedTerms(
  manager: EntityManager,
  eventId: number,
): Promise<Array<{ termId: number; taxonomy: string }>> {
  const rows: Array<{ termId: number | string; taxonomy: string }> = await manager
    .createQueryBuilder(EventTerm, 'et')
    .innerJoin(Term, 't', 't.id = et.termId')
    .select('et.termId', 'termId')
    .addSelect('t.taxonomy', 'taxonomy')
    .where('et.eventId = :eventId', { eventId })
    .getRawMany();
  return rows.map((row) => ({ termId: Number(row.termId), taxonomy: row.taxonomy }));
}

/** Deletes an event for good with its texts and links; its child events lose their parent. */
export async function deleteEvent(manager: EntityManager, id: number): Promise<void> {
  await manager.update(Event, { parentId: id }, { parentId: null });
  await manager.delete(EventTerm, { eventId: id });
  await manager.delete(EventOrganizer, { eventId: id });
  await manager.delete(EventTranslation, { eventId: id });
  await manager.delete(Event, id);
}

/** The first statement of a transaction that changes an existing event (see lockRow). */
export function lockEventRow(manager: EntityManager, eventId: number): Promise<void> {
  return lockRow(manager, Event, eventId);
}
