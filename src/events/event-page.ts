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
  /** None when a list of IDs came back cut short: the mapper then reads them by ID. */
  links?: EventLinkRows;
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
  let links: EventLinkRows | undefined = { termLinks: [], organizerLinks: [] };
  for (const { record, extras } of read) {
    const eventId = record.id;
    const [termIds, organizerIds] = [idList(extras[TERM_IDS]), idList(extras[ORGANIZER_IDS])];
    if (!termIds || !organizerIds) {
      links = undefined;
      break;
    }
    for (const termId of termIds) links.termLinks.push({ eventId, termId });
    for (const organizerId of organizerIds) links.organizerLinks.push({ eventId, organizerId });
  }
  const version = versionSql && read.length > 0 ? Number(read[0].extras[VERSION] ?? 0) : undefined;
  return { events: read.map(({ record }) => record), links, version };
}

const TERM_IDS = 'term_ids';
const VERSION = 'data_version';
const ORGANIZER_IDS = 'organizer_ids';

/**
 * `<count>:<sum>:<GROUP_CONCAT of IDs>` as numbers (none for NULL or a count
 * of 0: no links); undefined when the IDs that came are not the ones counted
 * and summed: GROUP_CONCAT cuts its result at `group_concat_max_len` (1 KB by
 * default on MySQL 8 and TiDB), possibly inside an ID.
 */
export function idList(value: unknown): number[] | undefined {
  if (value === null || value === undefined) return [];
  const [count, sum, list] = String(value).split(':');
  if (Number(count) === 0) return [];
  const ids = (list ?? '').split(',').map(Number);
  const total = ids.reduce((a, b) => a + b, 0);
  return ids.length === Number(count) && total === Number(sum) ? ids : undefined;
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
    // The count and sum first, so an ID list cut short shows (idList).
    const ids = (shape: typeof terms, property: string, order = '') =>
      `(SELECT CONCAT(COUNT(*), ':', SUM(${column(shape, property)}), ':', ` +
      `GROUP_CONCAT(${column(shape, property)}${order})) FROM ${escape(shape.metadata.tableName)} l ` +
      `WHERE ${column(shape, 'eventId')} = r.${id})`;
    columns = {
      [TERM_IDS]: ids(terms, 'termId'),
      [ORGANIZER_IDS]: ids(
        organizers,
        'organizerId',
        ` ORDER BY ${column(organizers, 'position')}`,
      ),
    };
    linkColumns.set(connection, columns);
  }
  return columns;
}
