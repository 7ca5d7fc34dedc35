import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { columnOf, pageWithTranslations, shapeOf } from '../database/entity-rows';
import { EventOrganizer } from './entities/event-organizer.entity';
import { EventTerm } from './entities/event-term.entity';
import { Event } from './entities/event.entity';
import { orderKeys, type EventOrder } from './event-list-query';
import type { EventLinkRows } from './event-records.service';

/** A list page's events, in its order, with the link rows their records are mapped with. */
export interface EventPage {
  events: Event[];
  links: EventLinkRows;
  /**
   * The data version read in the same statement (`versionSql` given), from
   * the first event's row: none when the page shows no event.
   */
  version?: number;
}

/**
 * A list page read in one statement: its IDs (the paged query of
 * `eventListQuery`, selecting `e.id AS id`), the events with their
 * translations, and each event's term and organizer IDs, aggregated per event
 * (GROUP_CONCAT, the same on MariaDB and SQLite). One round trip instead of
 * the IDs first and then three reads by ID; a single statement also reads one
 * snapshot, so the page and its links always agree.
 */
export async function readEventPage(
  manager: EntityManager,
  page: SelectQueryBuilder<Event>,
  order: Exclude<EventOrder, 'relevance'>,
  versionSql?: string,
): Promise<EventPage> {
  const [sql, params] = page.getQueryAndParameters();
  const extras = linkIdColumns(manager);
  const read = await pageWithTranslations<Event>(
    manager,
    Event,
    { sql, params, orderedBy: orderKeys(order) },
    versionSql ? { ...extras, [VERSION]: versionSql } : extras,
  );
  const links: EventLinkRows = { termLinks: [], organizerLinks: [] };
  for (const { record, extras } of read) {
    const eventId = record.id;
    for (const termId of idList(extras[TERM_IDS])) links.termLinks.push({ eventId, termId });
    for (const organizerId of idList(extras[ORGANIZER_IDS]))
      links.organizerLinks.push({ eventId, organizerId });
  }
  const version = versionSql && read.length > 0 ? Number(read[0].extras[VERSION] ?? 0) : undefined;
  return { events: read.map(({ record }) => record), links, version };
}

const TERM_IDS = 'term_ids';
const VERSION = 'data_version';
const ORGANIZER_IDS = 'organizer_ids';

/** A GROUP_CONCAT of IDs as numbers (none for NULL: no links). */
function idList(value: unknown): number[] {
  if (value === null || value === undefined) return [];
  return String(value).split(',').map(Number);
}

// Not write state: the SQL of the link columns, derived from fixed metadata.
const linkColumns = new WeakMap<EntityManager['connection'], Record<string, string>>();

/** Per event (alias `r`): its term IDs, and its organizer IDs in their order. */
function linkIdColumns(manager: EntityManager): Record<string, string> {
  const { connection } = manager;
  let columns = linkColumns.get(connection);
  if (!columns) {
    const escape = (name: string) => connection.driver.escape(name);
    const terms = shapeOf(manager, EventTerm);
    const organizers = shapeOf(manager, EventOrganizer);
    const id = escape(columnOf(shapeOf(manager, Event), 'id').databaseName);
    const column = (shape: typeof terms, property: string) =>
      `l.${escape(columnOf(shape, property).databaseName)}`;
    columns = {
      [TERM_IDS]:
        `(SELECT GROUP_CONCAT(${column(terms, 'termId')}) FROM ${escape(terms.metadata.tableName)} l ` +
        `WHERE ${column(terms, 'eventId')} = r.${id})`,
      [ORGANIZER_IDS]:
        `(SELECT GROUP_CONCAT(${column(organizers, 'organizerId')} ORDER BY ${column(organizers, 'position')}) ` +
        `FROM ${escape(organizers.metadata.tableName)} l WHERE ${column(organizers, 'eventId')} = r.${id})`,
    };
    linkColumns.set(connection, columns);
  }
  return columns;
}
