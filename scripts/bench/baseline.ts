/*
 * The benchmark's baseline: the event requests of the bench answered by plain
 * `node:http` and a `mysql2/promise` pool — no Nest, no Express, no TypeORM,
 * no validation framework. It issues the same SQL statements as the service
 * for each request (as the MariaDB general log shows them), in the same order
 * and with the same parallelism — a list reads its page, records, link IDs and
 * the data_version in one statement (then maybe the count) when the offset is
 * at most 10,000 (a search: the data_version and maybe the count beside the
 * page of IDs, then the records beside their link rows), then the terms,
 * organizers and venues — and answers the same JSON bytes by
 * building the same plain objects from raw rows and passing them to the
 * service's own PURE mapping functions (mapEvent, mapTerm, mapVenue,
 * mapOrganizer, eventWindow, eventColumns, postColumns, ...).
 *
 * Those functions are loaded from a code root at run time: the compiled
 * `dist/` for the benchmark (so both servers run the very same mapper code,
 * as plain JavaScript) or `src/` under Jest. Only types are imported
 * statically, so this file pulls in nothing of Nest or TypeORM; start() checks
 * that at run time.
 *
 * It handles only what the request sets need (anonymous reads in the default
 * language, an editor's create with IDs for its links) and answers anything
 * else with a bare 404/400/401.
 *
 * Run directly (the bench does this, after transpiling it to plain JS):
 *   BASELINE_CODE_ROOT=dist DATABASE_URL=mysql://… PORT=3902 node baseline.js
 */
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Pool, PoolConnection, PoolOptions, RowDataPacket } from 'mysql2/promise';

type EventMapperModule = typeof import('../../src/events/event.mapper');
type TermMapperModule = typeof import('../../src/terms/term.mapper');
type VenueMapperModule = typeof import('../../src/venues/venue.mapper');
type OrganizerMapperModule = typeof import('../../src/organizers/organizer.mapper');
type TaxonomiesModule = typeof import('../../src/terms/taxonomies');
type DateWindowModule = typeof import('../../src/events/date-window');
type DatesModule = typeof import('../../src/common/time/dates');
type SearchModule = typeof import('../../src/posts/search');
type LanguageModule = typeof import('../../src/i18n/language');
type PolicyModule = typeof import('../../src/auth/policy');
type AuthUserModule = typeof import('../../src/auth/auth-user');
type PasswordModule = typeof import('../../src/events/event-password');
type EventWriteModule = typeof import('../../src/events/event-write');
type ContentWriteModule = typeof import('../../src/posts/post-write');
type SlugsModule = typeof import('../../src/posts/slugs');
type InputParsingModule = typeof import('../../src/common/validation/input-parsing');
type ListPageModule = typeof import('../../src/common/pagination/list-page');

type Event = import('../../src/events/entities/event.entity').Event;
type EventTranslation = import('../../src/events/entities/event-translation.entity').EventTranslation;
type Term = import('../../src/terms/entities/term.entity').Term;
type Venue = import('../../src/venues/entities/venue.entity').Venue;
type Organizer = import('../../src/organizers/entities/organizer.entity').Organizer;
type EventLinks = import('../../src/events/event.mapper').EventLinks;
type TermRecord = import('../../src/terms/term.mapper').TermRecord;
type VenueRecord = import('../../src/venues/venue.mapper').VenueRecord;
type OrganizerRecord = import('../../src/organizers/organizer.mapper').OrganizerRecord;
type AuthUser = import('../../src/auth/auth-user').AuthUser;
type Language = import('../../src/i18n/language').Language;
type ContentMapOptions = import('../../src/posts/content-record').ContentMapOptions;

/** The pure functions the baseline shares with the service. */
export interface Code {
  eventMapper: EventMapperModule;
  termMapper: TermMapperModule;
  venueMapper: VenueMapperModule;
  organizerMapper: OrganizerMapperModule;
  taxonomies: TaxonomiesModule;
  dateWindow: DateWindowModule;
  dates: DatesModule;
  search: SearchModule;
  language: LanguageModule;
  policy: PolicyModule;
  authUser: AuthUserModule;
  password: PasswordModule;
  eventWrite: EventWriteModule;
  contentWrite: ContentWriteModule;
  slugs: SlugsModule;
  inputParsing: InputParsingModule;
  listPage: ListPageModule;
}

export async function loadCode(root: string): Promise<Code> {
  const load = async <M>(path: string): Promise<M> => (await import(join(root, path))) as M;
  return {
    eventMapper: await load('events/event.mapper'),
    termMapper: await load('terms/term.mapper'),
    venueMapper: await load('venues/venue.mapper'),
    organizerMapper: await load('organizers/organizer.mapper'),
    taxonomies: await load('terms/taxonomies'),
    dateWindow: await load('events/date-window'),
    dates: await load('common/time/dates'),
    search: await load('posts/search'),
    language: await load('i18n/language'),
    policy: await load('auth/policy'),
    authUser: await load('auth/auth-user'),
    password: await load('events/event-password'),
    eventWrite: await load('events/event-write'),
    contentWrite: await load('posts/post-write'),
    slugs: await load('posts/slugs'),
    inputParsing: await load('common/validation/input-parsing'),
    listPage: await load('common/pagination/list-page'),
  };
}

export interface BaselineOptions {
  databaseUrl: string;
  /** 0: any free port. */
  port: number;
  host?: string;
  /** Where the service's pure functions are loaded from: the compiled dist/ or src/ (Jest). */
  codeRoot: string;
  publicSiteUrl: string;
  siteTimezone: string;
  jwtSecret: string;
  defaultLanguage?: Language;
  maxPerPage?: number;
  /** mysql2 pool size (the service's is 10). */
  connectionLimit?: number;
}

export interface Baseline {
  server: Server;
  port: number;
  close(): Promise<void>;
}

const API_PATH = '/calendar/events/v1';
const BODY_LIMIT = 1024 * 1024;
/** As the service's CountCacheService. */
const COUNT_CACHE_ENTRIES = 1000;
const COUNT_MAX_AGE_MS = 60_000;
const WRITE_ATTEMPTS = 30;
/** As the service's PARALLEL_PAGE_MAX_OFFSET: up to this offset a list reads its page beside its total. */
const PARALLEL_PAGE_MAX_OFFSET = 10_000;

/* ---- SQL: the service's statements (TypeORM's column lists, without its aliases) ---- */

export const EVENT_COLUMNS = [
  'id', 'author_id', 'status', 'published_at', 'modified_at', 'image_id', 'image_url',
  'external_source', 'external_id',
  'timezone', 'start_local', 'end_local', 'start_at', 'end_at', 'all_day', 'cost', 'website',
  'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured', 'ticketed',
  'parent_id', 'password_hash', 'venue_id', 'recurrence', 'series_id', 'occurrence_date',
  'detached', 'materialized_until',
];
const POST_COLUMNS = [
  'id', 'author_id', 'status', 'published_at', 'modified_at', 'image_id', 'image_url',
  'external_source', 'external_id',
];
const VENUE_COLUMNS = [
  ...POST_COLUMNS, 'address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website',
  'stateprovince', 'geo_lat', 'geo_lng', 'show_map', 'show_map_link',
];
const ORGANIZER_COLUMNS = [...POST_COLUMNS, 'phone', 'website', 'email'];
const TERM_COLUMNS = ['id', 'taxonomy', 'parent_id', 'published_count', 'created_at'];
const TERM_TRANSLATION_COLUMNS = ['id', 'term_id', 'taxonomy', 'parent_id', 'language', 'name', 'name_key', 'slug', 'description'];

const columns = (alias: string, names: string[], prefix: string) =>
  names.map((name) => `\`${alias}\`.\`${name}\` AS \`${prefix}${name}\``).join(', ');
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** A record with its translations, by IDs, in one LEFT JOIN (recordsWithTranslations in src/database/entity-rows.ts). */
function withTranslationsSql(
  table: string,
  recordColumns: string[],
  translationTable: string,
  translationColumns: string[],
  ownerColumn: string,
  n: number,
): string {
  return (
    `SELECT ${columns('r', recordColumns, 'r_')}, ${columns('t', translationColumns, 't_')} ` +
    `FROM \`${table}\` r LEFT JOIN \`${translationTable}\` t ON t.\`${ownerColumn}\` = r.\`id\` ` +
    `WHERE r.\`id\` IN (${placeholders(n)})`
  );
}

export const SQL = {
  version: 'SELECT `id`, `version` AS `v_version` FROM `data_version` WHERE `id` IN (?)',
  termIdsBySlug: (n: number) =>
    'SELECT `tt`.`term_id` AS `tt_term_id`, `tt`.`slug` AS `tt_slug`, `tt`.`id` AS `tt_id` FROM `term_translations` `tt` ' +
    `WHERE ((\`tt\`.\`slug\` IN (${placeholders(n)})) AND (\`tt\`.\`taxonomy\` = ?))`,
  termIdsById: (n: number) =>
    'SELECT `t`.`id` AS `t_id` FROM `terms` `t` ' +
    `WHERE ((\`t\`.\`id\` IN (${placeholders(n)})) AND (\`t\`.\`taxonomy\` = ?))`,
  events: (n: number) =>
    withTranslationsSql('events', EVENT_COLUMNS, 'event_translations',
      ['id', 'language', 'slug', 'description', 'excerpt', 'event_id', 'title'], 'event_id', n),
  /** readEventPage (src/events/event-page.ts): the page, its events with their texts and their link IDs. */
  eventPage: (from: string, where: string, perPage: number, offset: number, versioned: boolean) =>
    `SELECT ${columns('r', EVENT_COLUMNS, 'r_')}, ` +
    (versioned ? '(SELECT `version` FROM `data_version` WHERE `id` = 1) AS `data_version`, ' : '') +
    `${columns('t', ['id', 'language', 'slug', 'description', 'excerpt', 'event_id', 'title'], 't_')}, ` +
    "(SELECT CONCAT(COUNT(*), ':', SUM(l.`term_id`), ':', GROUP_CONCAT(l.`term_id`)) FROM `event_terms` l " +
    'WHERE l.`event_id` = r.`id`) AS `term_ids`, ' +
    "(SELECT CONCAT(COUNT(*), ':', SUM(l.`organizer_id`), ':', GROUP_CONCAT(l.`organizer_id` ORDER BY l.`position`)) " +
    'FROM `event_organizers` l WHERE l.`event_id` = r.`id`) AS `organizer_ids` ' +
    `FROM (SELECT \`e\`.\`id\` AS \`id\` FROM ${from} WHERE ${where} ORDER BY \`e\`.\`start_at\` ASC, \`e\`.\`id\` ASC ` +
    `LIMIT ${perPage} OFFSET ${offset}) p INNER JOIN \`events\` r ON r.\`id\` = p.\`id\` ` +
    'LEFT JOIN `event_translations` t ON t.`event_id` = r.`id` ORDER BY r.`start_at`, r.`id`',
  eventTerms: (n: number) =>
    'SELECT `et`.`event_id` AS `et_event_id`, `et`.`term_id` AS `et_term_id` FROM `event_terms` `et` ' +
    `WHERE ((\`et\`.\`event_id\` IN (${placeholders(n)})))`,
  eventOrganizers: (n: number) =>
    'SELECT `eo`.`event_id` AS `eo_event_id`, `eo`.`organizer_id` AS `eo_organizer_id`, `eo`.`position` AS `eo_position` ' +
    `FROM \`event_organizers\` \`eo\` WHERE ((\`eo\`.\`event_id\` IN (${placeholders(n)}))) ORDER BY \`eo\`.\`position\` ASC`,
  terms: (n: number) => withTranslationsSql('terms', TERM_COLUMNS, 'term_translations', TERM_TRANSLATION_COLUMNS, 'term_id', n),
  organizers: (n: number) =>
    withTranslationsSql('organizers', ORGANIZER_COLUMNS, 'organizer_translations',
      ['id', 'language', 'slug', 'description', 'excerpt', 'organizer_id', 'name', 'name_key'], 'organizer_id', n),
  venues: (n: number) =>
    withTranslationsSql('venues', VENUE_COLUMNS, 'venue_translations',
      ['id', 'language', 'slug', 'description', 'excerpt', 'venue_id', 'name', 'name_key'], 'venue_id', n),
  eventIdBySlug:
    'SELECT `s`.`id` AS `s_id`, `s`.`event_id` AS `s_event_id` FROM `event_translations` `s` ' +
    'WHERE ((`s`.`language` = ?) AND (`s`.`slug` = ?)) LIMIT 1',
  // Create (EventsService.create): the statements of its transaction, in order.
  usableVenues: (n: number) =>
    `SELECT COUNT(1) AS \`cnt\` FROM \`venues\` \`v\` WHERE ((\`v\`.\`id\` IN (${placeholders(n)})) AND (\`v\`.\`status\` != ?))`,
  usableOrganizers: (n: number) =>
    `SELECT COUNT(1) AS \`cnt\` FROM \`organizers\` \`o\` WHERE ((\`o\`.\`id\` IN (${placeholders(n)})) AND (\`o\`.\`status\` != ?))`,
  slugFamily:
    'SELECT `s`.`slug` AS `s_slug`, `s`.`event_id` AS `s_event_id`, `s`.`id` AS `s_id` FROM `event_translations` `s` ' +
    'WHERE `s`.`language` = ? AND (`s`.`slug` = ? OR `s`.`slug` LIKE ?)',
  insertTranslation:
    'INSERT INTO `event_translations`(`id`, `language`, `slug`, `description`, `excerpt`, `event_id`, `title`) ' +
    'VALUES (DEFAULT, ?, ?, ?, ?, ?, ?)',
  lockTerms: (n: number) => `SELECT id, taxonomy, published_count AS count FROM terms WHERE id IN (${placeholders(n)}) ORDER BY id FOR UPDATE`,
  endpoints: 'SELECT id, events, url, secret, consecutive_failures FROM webhook_endpoints WHERE enabled = 1 LOCK IN SHARE MODE',
  takeSequence:
    'UPDATE change_state c, data_version d SET c.seq = LAST_INSERT_ID(c.seq + ?), d.version = d.version + 1 WHERE c.id = 1 AND d.id = 1',
  upsertChanges: (n: number) =>
    `INSERT INTO changes (kind, record_id, seq, deleted, changed_at) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?)').join(', ')} ` +
    'ON DUPLICATE KEY UPDATE seq = VALUES(seq), deleted = VALUES(deleted), changed_at = VALUES(changed_at)',
  insertOrganizers: (n: number) =>
    `INSERT INTO \`event_organizers\`(\`event_id\`, \`organizer_id\`, \`position\`) VALUES ${Array.from({ length: n }, () => '(?, ?, ?)').join(', ')}`,
  insertTerms: (n: number) =>
    `INSERT INTO \`event_terms\`(\`event_id\`, \`term_id\`) VALUES ${Array.from({ length: n }, () => '(?, ?)').join(', ')}`,
  adjustTerms: (n: number) => `UPDATE terms SET published_count = published_count + ? WHERE id IN (${placeholders(n)})`,
};

/** The events-list WHERE clause, as eventListQuery builds it for the filters the bench sends. */
export interface ListFilters {
  window: { startMin?: number; startMax?: number; endMin?: number; endMax?: number };
  search?: { words: string[]; language: Language };
  categoryIds?: number[];
}

export function listWhere(filters: ListFilters, code: Code): { from: string; where: string; params: unknown[] } {
  const params: unknown[] = [];
  let from = '`events` `e`';
  const joinParams: unknown[] = [];
  const where: string[] = ['`e`.`status` IN (?)'];
  params.push('publish');
  const { startMin, startMax, endMin, endMax } = filters.window;
  if (startMin !== undefined) {
    where.push('`e`.`start_at` >= ?');
    params.push(startMin);
  }
  if (startMax !== undefined) {
    where.push('`e`.`start_at` <= ?');
    params.push(startMax);
  }
  if (endMin !== undefined) {
    where.push('`e`.`end_at` >= ?');
    params.push(endMin);
  }
  if (endMax !== undefined) {
    where.push('`e`.`end_at` <= ?');
    params.push(endMax);
  }
  where.push('`e`.`hide_from_listings` = ?');
  params.push(false);
  if (filters.search) {
    from +=
      ' LEFT JOIN `event_translations` `tr` ON `tr`.`event_id` = `e`.`id` AND `tr`.`language` = ? ' +
      ' LEFT JOIN `event_translations` `fb` ON `fb`.`event_id` = `e`.`id` AND `fb`.`language` = ? AND `tr`.`id` IS NULL';
    joinParams.push(filters.search.language, code.language.otherLanguage(filters.search.language));
    const fields = ['title', 'excerpt', 'description'].map(
      (field) => `LOWER(COALESCE(\`tr\`.\`${field}\`, \`fb\`.\`${field}\`))`,
    );
    for (const word of filters.search.words) {
      where.push(`(${fields.map((f) => `${f} LIKE ? ${code.search.LIKE_ESCAPE}`).join(' OR ')})`);
      const pattern = code.search.likeContains(word.toLowerCase());
      params.push(pattern, pattern, pattern);
    }
  }
  if (filters.categoryIds) {
    where.push(
      'EXISTS (SELECT 1 FROM `event_terms` `et_categories` WHERE `et_categories`.`event_id` = `e`.`id` ' +
        `AND \`et_categories\`.\`term_id\` IN (${placeholders(filters.categoryIds.length)}))`,
    );
    params.push(...filters.categoryIds);
  }
  return { from, where: where.join(' AND '), params: [...joinParams, ...params] };
}

/* ---- rows → the plain objects the service's entities would be ---- */

export type Row = RowDataPacket & Record<string, unknown>;
export const num = (value: unknown): number => Number(value);
const numOrNull = (value: unknown): number | null => (value === null ? null : Number(value));
const bool = (value: unknown): boolean => Boolean(value);
const str = (value: unknown): string | null => (value === null ? null : String(value));

function postFields(row: Row) {
  return {
    id: num(row.r_id),
    authorId: num(row.r_author_id),
    status: row.r_status as Event['status'],
    publishedAt: num(row.r_published_at),
    modifiedAt: num(row.r_modified_at),
    imageId: numOrNull(row.r_image_id),
    imageUrl: str(row.r_image_url),
    externalSource: str(row.r_external_source),
    externalId: str(row.r_external_id),
  };
}

/** Groups joined record/translation rows by record, in the order of first appearance. */
function grouped<R extends { translations: unknown[] }>(
  rows: Row[],
  record: (row: Row) => R,
  translation: (row: Row) => R['translations'][number],
): Map<number, R> {
  const records = new Map<number, R>();
  for (const row of rows) {
    const id = num(row.r_id);
    let item = records.get(id);
    if (!item) records.set(id, (item = record(row)));
    if (row.t_id !== null && row.t_id !== undefined) item.translations.push(translation(row));
  }
  return records;
}

/** An events row (columns `r_<name>`) as the Event entity, with these translations. */
export function eventFromRow(row: Row, translations: EventTranslation[]): Event {
  return {
    ...postFields(row),
    timezone: String(row.r_timezone),
    startLocal: String(row.r_start_local),
    endLocal: String(row.r_end_local),
    startAt: num(row.r_start_at),
    endAt: num(row.r_end_at),
    allDay: bool(row.r_all_day),
    cost: str(row.r_cost),
    website: str(row.r_website),
    showMap: bool(row.r_show_map),
    showMapLink: bool(row.r_show_map_link),
    hideFromListings: bool(row.r_hide_from_listings),
    sticky: bool(row.r_sticky),
    featured: bool(row.r_featured),
    ticketed: bool(row.r_ticketed),
    parentId: numOrNull(row.r_parent_id),
    passwordHash: str(row.r_password_hash),
    venueId: numOrNull(row.r_venue_id),
    recurrence: str(row.r_recurrence),
    seriesId: numOrNull(row.r_series_id),
    occurrenceDate: str(row.r_occurrence_date),
    detached: bool(row.r_detached),
    materializedUntil: str(row.r_materialized_until),
    translations,
  } as unknown as Event;
}

function eventsFromRows(rows: Row[]): Map<number, Event> {
  return grouped(
    rows,
    (row) => eventFromRow(row, []),
    (row) =>
      ({
        id: num(row.t_id),
        language: String(row.t_language),
        slug: String(row.t_slug),
        description: str(row.t_description),
        excerpt: str(row.t_excerpt),
        eventId: num(row.t_event_id),
        title: String(row.t_title),
      }) as EventTranslation,
  );
}

/** Rows of SQL.eventPage: the events in page order (those with texts), their link rows, the version read. */
function eventPageFromRows(rows: Row[]): { events: Event[]; links: LinkRows; version?: number } {
  const links: LinkRows = { termLinks: [], organizerLinks: [] };
  const seen = new Set<number>();
  for (const row of rows) {
    const id = num(row.r_id);
    if (seen.has(id)) continue;
    seen.add(id);
    for (const termId of idList(row.term_ids)) links.termLinks.push({ et_event_id: id, et_term_id: termId } as Row);
    for (const organizerId of idList(row.organizer_ids))
      links.organizerLinks.push({ eo_event_id: id, eo_organizer_id: organizerId } as Row);
  }
  const shown = rows.filter((row) => row.t_id !== null);
  const events = [...eventsFromRows(shown).values()];
  const version = shown.length > 0 && 'data_version' in shown[0] ? num(shown[0].data_version ?? 0) : undefined;
  return { events, links, version };
}

/* idList of src/events/event-page.ts, for `<count>:<sum>:<ids>` (the bench's lists are never cut short). */
function idList(value: unknown): number[] {
  if (value === null || value === undefined) return [];
  const [count, , list] = String(value).split(':');
  return Number(count) === 0 ? [] : list.split(',').map(Number);
}

export function termsFromRows(rows: Row[]): Map<number, Term> {
  return grouped(
    rows,
    (row) =>
      ({
        id: num(row.r_id),
        taxonomy: row.r_taxonomy as Term['taxonomy'],
        parentId: num(row.r_parent_id),
        publishedCount: num(row.r_published_count),
        createdAt: num(row.r_created_at),
        translations: [],
      }) as unknown as Term,
    (row) =>
      ({
        id: num(row.t_id),
        termId: num(row.t_term_id),
        taxonomy: row.t_taxonomy,
        parentId: num(row.t_parent_id),
        language: String(row.t_language),
        name: String(row.t_name),
        nameKey: String(row.t_name_key),
        slug: String(row.t_slug),
        description: str(row.t_description),
      }) as Term['translations'][number],
  );
}

function contentTranslation(row: Row, owner: string) {
  return {
    id: num(row.t_id),
    language: String(row.t_language),
    slug: String(row.t_slug),
    description: str(row.t_description),
    excerpt: str(row.t_excerpt),
    [owner]: num(row[`t_${owner === 'venueId' ? 'venue_id' : 'organizer_id'}`]),
    name: String(row.t_name),
    nameKey: String(row.t_name_key),
  };
}

export function venuesFromRows(rows: Row[]): Map<number, Venue> {
  return grouped(
    rows,
    (row) =>
      ({
        ...postFields(row),
        address: str(row.r_address),
        city: str(row.r_city),
        country: str(row.r_country),
        province: str(row.r_province),
        state: str(row.r_state),
        zip: str(row.r_zip),
        phone: str(row.r_phone),
        website: str(row.r_website),
        stateprovince: str(row.r_stateprovince),
        geoLat: row.r_geo_lat as number | null,
        geoLng: row.r_geo_lng as number | null,
        showMap: bool(row.r_show_map),
        showMapLink: bool(row.r_show_map_link),
        translations: [],
      }) as unknown as Venue,
    (row) => contentTranslation(row, 'venueId') as unknown as Venue['translations'][number],
  );
}

export function organizersFromRows(rows: Row[]): Map<number, Organizer> {
  return grouped(
    rows,
    (row) =>
      ({
        ...postFields(row),
        phone: str(row.r_phone),
        website: str(row.r_website),
        email: str(row.r_email),
        translations: [],
      }) as unknown as Organizer,
    (row) => contentTranslation(row, 'organizerId') as unknown as Organizer['translations'][number],
  );
}

/* ---- the server ---- */

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

/** EventsService's EventLinkRows, as raw rows. */
interface LinkRows {
  termLinks: Row[];
  organizerLinks: Row[];
}

/** The rows of what link rows name. */
interface Linked {
  terms: Map<number, Term>;
  organizers: Map<number, Organizer>;
  venues: Map<number, Venue>;
}

export interface Ctx {
  language: Language;
  user?: AuthUser;
  apiUrl: string;
  host: string;
}

/** The options TypeORM gives mysql2 (MysqlDriver.createConnectionOptions) plus the service's. */
export function poolOptions(databaseUrl: string, connectionLimit: number): PoolOptions {
  const url = new URL(databaseUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.replace(/^\//, ''),
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    connectTimeout: 5000,
    supportBigNumbers: true,
    bigNumberStrings: true,
    stringifyObjects: true,
    connectionLimit,
    // As the service since 5b568ee: no stack trace captured per query.
    trace: false,
    maxIdle: 5,
    idleTimeout: 60_000,
    enableKeepAlive: true,
    keepAliveInitialDelay: 10_000,
  };
}

export async function startBaseline(options: BaselineOptions): Promise<Baseline> {
  const code = await loadCode(options.codeRoot);
  const { createPool } = await import('mysql2/promise');
  const { jwtVerify } = await import('jose');
  const { DateTime } = await import('luxon');
  const pool: Pool = createPool(poolOptions(options.databaseUrl, options.connectionLimit ?? 10));

  const siteUrl = options.publicSiteUrl.replace(/\/+$/, '');
  const siteZone = options.siteTimezone;
  const zone = code.dates.parseZone(siteZone);
  if (!zone) throw new Error(`baseline: bad site time zone ${siteZone}`);
  const defaultLanguage = options.defaultLanguage ?? 'nl';
  const maxPerPage = options.maxPerPage ?? 50;
  const secret = new TextEncoder().encode(options.jwtSecret);
  const passwordKey = code.password.passwordKey(options.jwtSecret);
  const { CATEGORIES, TAGS } = code.taxonomies;
  const counts = new Map<string, { version: number; count: number; at: number }>();

  const rows = async (sql: string, params: unknown[], on: Pool | PoolConnection = pool) =>
    (await on.query<Row[]>(sql, params))[0];



  /* CountCacheService.count */
  async function cachedCount(key: string, compute: () => Promise<number>, known?: number): Promise<number> {
    const version = known ?? (await currentVersion());
    const entry = counts.get(key);
    if (entry && entry.version === version && Date.now() - entry.at < COUNT_MAX_AGE_MS) {
      counts.delete(key);
      counts.set(key, entry);
      return entry.count;
    }
    const count = await compute();
    counts.set(key, { version, count, at: Date.now() });
    if (counts.size > COUNT_CACHE_ENTRIES) counts.delete(counts.keys().next().value as string);
    return count;
  }

  async function currentVersion(): Promise<number> {
    const [row] = await rows(SQL.version, [1]);
    return row ? num(row.v_version) : 0;
  }

  async function loadEvents(ids: number[], on: Pool | PoolConnection = pool): Promise<Map<number, Event>> {
    if (ids.length === 0) return new Map();
    return eventsFromRows(await rows(SQL.events(ids.length), ids, on));
  }

  /* EventsService.linkRows: the term and organizer link rows of events, two reads in parallel. */
  async function linkRows(ids: number[], on: Pool | PoolConnection = pool): Promise<LinkRows> {
    if (ids.length === 0) return { termLinks: [], organizerLinks: [] };
    const [termLinks, organizerLinks] = await Promise.all([
      rows(SQL.eventTerms(ids.length), ids, on),
      rows(SQL.eventOrganizers(ids.length), ids, on),
    ]);
    return { termLinks, organizerLinks };
  }

  /* EventsService.loadLinks: the terms, organizers and venues of the link rows (readLinked), mapped. */
  async function loadLinks(
    events: Event[],
    links: LinkRows,
    ctx: Ctx,
    on: Pool | PoolConnection = pool,
  ): Promise<Map<number, EventLinks>> {
    if (events.length === 0) return new Map();
    return mapLinked(events, links, await readLinked(events, links, on), ctx);
  }

  /* The rows of the terms, organizers and venues of the link rows: three reads in parallel. */
  async function readLinked(events: Event[], { termLinks, organizerLinks }: LinkRows, on: Pool | PoolConnection): Promise<Linked> {
    const termIds = [...new Set(termLinks.map((link) => num(link.et_term_id)))];
    const organizerIds = [...new Set(organizerLinks.map((link) => num(link.eo_organizer_id)))];
    const venueIds = [...new Set(events.flatMap((event) => (event.venueId ? [event.venueId] : [])))];
    const [terms, organizers, venues] = await Promise.all([
      termIds.length ? rows(SQL.terms(termIds.length), termIds, on).then(termsFromRows) : new Map<number, Term>(),
      organizerIds.length
        ? rows(SQL.organizers(organizerIds.length), organizerIds, on).then(organizersFromRows)
        : new Map<number, Organizer>(),
      venueIds.length ? rows(SQL.venues(venueIds.length), venueIds, on).then(venuesFromRows) : new Map<number, Venue>(),
    ]);
    return { terms, organizers, venues };
  }

  function mapLinked(
    events: Event[],
    { termLinks, organizerLinks }: LinkRows,
    { terms, organizers, venues }: Linked,
    ctx: Ctx,
  ): Map<number, EventLinks> {
    const termRecords = new Map<number, TermRecord>();
    for (const term of terms.values()) {
      if (term.translations.length === 0) continue;
      const info = term.taxonomy === CATEGORIES.taxonomy ? CATEGORIES : TAGS;
      termRecords.set(
        term.id,
        code.termMapper.mapTerm(term, info, { language: ctx.language, apiUrl: ctx.apiUrl, siteUrl, withTranslations: false }),
      );
    }
    const contentOptions = (names: ContentMapOptions['names']): ContentMapOptions => ({
      language: ctx.language,
      apiUrl: ctx.apiUrl,
      siteUrl,
      siteZone,
      names,
      withJsonLd: false,
      withTranslations: false,
    });
    const venueOptions = contentOptions({ titleWire: 'venue', collection: 'venues', permalinkPath: 'venue' });
    const organizerOptions = contentOptions({ titleWire: 'organizer', collection: 'organizers', permalinkPath: 'organizer' });
    const venueRecords = new Map([...venues].map(([id, v]) => [id, code.venueMapper.mapVenue(v, venueOptions)]));
    const organizerRecords = new Map(
      [...organizers].map(([id, o]) => [id, code.organizerMapper.mapOrganizer(o, organizerOptions)]),
    );
    const visible = <R extends VenueRecord | OrganizerRecord>(record?: R) =>
      record &&
      code.policy.AccessPolicy.canSeeItem(ctx.user, { authorId: Number(record.author), status: record.status })
        ? record
        : undefined;
    return new Map(
      events.map((event) => {
        const eventTerms = termLinks
          .filter((link) => num(link.et_event_id) === event.id)
          .flatMap((link) => termRecords.get(num(link.et_term_id)) ?? [])
          .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
        return [
          event.id,
          {
            categories: eventTerms.filter((term) => term.taxonomy === CATEGORIES.taxonomy),
            tags: eventTerms.filter((term) => term.taxonomy === TAGS.taxonomy),
            venue: event.venueId ? visible(venueRecords.get(event.venueId)) : undefined,
            organizers: organizerLinks
              .filter((link) => num(link.eo_event_id) === event.id)
              .flatMap((link) => visible(organizerRecords.get(num(link.eo_organizer_id))) ?? []),
          },
        ];
      }),
    );
  }

  function isLocked(event: Event, ctx: Ctx, password: string | undefined): boolean {
    return (
      event.passwordHash !== null &&
      !code.policy.AccessPolicy.canEditItem(ctx.user, event) &&
      !code.password.passwordMatches(passwordKey, event.passwordHash, password)
    );
  }

  /* EventsService.mapEvents: the link rows (unless a list read them already), then loadLinks. */
  async function mapEvents(
    events: Event[],
    ctx: Ctx,
    extra: (event: Event) => { withJsonLd?: boolean; blanked?: boolean },
    known?: LinkRows,
    on: Pool | PoolConnection = pool,
  ) {
    const links = await loadLinks(events, known ?? (await linkRows(events.map((event) => event.id), on)), ctx, on);
    return eventRecords(events, links, ctx, extra);
  }

  /* The mapper's records of events with their links. */
  function eventRecords(
    events: Event[],
    links: Map<number, EventLinks>,
    ctx: Ctx,
    extra: (event: Event) => { withJsonLd?: boolean; blanked?: boolean } = () => ({}),
  ) {
    return events.map((event) =>
      code.eventMapper.mapEvent(event, links.get(event.id) as EventLinks, {
        language: ctx.language,
        apiUrl: ctx.apiUrl,
        siteUrl,
        siteZone,
        withJsonLd: false,
        withTranslations: false,
        blanked: false,
        ...extra(event),
      }),
    );
  }

  /* ---- GET /events ---- */
  async function list(query: URLSearchParams, ctx: Ctx, path: string) {
    const one = (name: string) => query.get(name) ?? undefined;
    const positive = (name: string): number | undefined => {
      const value = one(name);
      if (value === undefined) return undefined;
      if (!/^\d+$/.test(value) || Number(value) < 1) throw new HttpError(400, 'rest_invalid_param');
      return Number(value);
    };
    const page = positive('page') ?? 1;
    const perPage = Math.min(positive('per_page') ?? 10, maxPerPage);
    const categories = one('categories')?.split(',').filter(Boolean);
    let categoryIds: number[] | undefined;
    if (categories?.length) {
      const found = await rows(SQL.termIdsBySlug(categories.length), [...categories, CATEGORIES.taxonomy]);
      if (new Set(found.map((t) => t.tt_slug)).size !== new Set(categories).size)
        throw new HttpError(400, 'rest_invalid_param');
      categoryIds = [...new Set(found.map((t) => num(t.tt_term_id)))];
    }
    const words = code.search.searchWords(one('search') ?? '');
    for (const name of ['start_date', 'end_date'])
      if (one(name) !== undefined && !code.dates.isDateInput(one(name))) throw new HttpError(400, 'rest_invalid_param');
    const filters: ListFilters = {
      window: code.dateWindow.eventWindow(
        { start_date: one('start_date'), end_date: one('end_date') },
        zone as NonNullable<typeof zone>,
        DateTime.now(),
      ),
      search: words.length > 0 ? { words, language: ctx.language } : undefined,
      categoryIds,
    };
    const { from, where, params } = listWhere(filters, code);
    const countSql = filters.search
      ? `SELECT COUNT(DISTINCT \`e\`.\`id\`) AS \`cnt\` FROM ${from} WHERE ${where}`
      : `SELECT COUNT(1) AS \`cnt\` FROM ${from} WHERE ${where}`;
    const offset = (page - 1) * perPage;
    const total = (version?: number) =>
      cachedCount(
        `events:${JSON.stringify(filters)}`,
        async () => {
          const [row] = await rows(countSql, params);
          return num(row.cnt);
        },
        version,
      );
    const pageIds = async () =>
      (
        await rows(
          `SELECT \`e\`.\`id\` AS \`id\` FROM ${from} WHERE ${where} ORDER BY \`e\`.\`start_at\` ASC, \`e\`.\`id\` ASC ` +
            `LIMIT ${perPage} OFFSET ${offset}`,
          params,
        )
      ).map((row) => num(row.id));
    const notFound = (count: number) => {
      if (page > 1 && page > code.listPage.totalPages(count, perPage))
        throw new HttpError(404, 'event-archive-page-not-found');
    };
    let count: number;
    let read: { events: Event[]; links: LinkRows; version?: number };
    if (filters.search) {
      // As the service's search: the total (data_version read, maybe the count) beside the
      // page's IDs, unless the offset is deep; then the records beside their link rows.
      let early: number[] | undefined;
      if (offset <= PARALLEL_PAGE_MAX_OFFSET) [count, early] = await Promise.all([total(), pageIds()]);
      else count = await total();
      notFound(count);
      const ids = early ?? (await pageIds());
      const [loaded, links] = await Promise.all([loadEvents(ids), linkRows(ids)]);
      read = { events: ids.flatMap((id) => loaded.get(id) ?? []), links };
    } else {
      // As readEventPage: the page with its events and link IDs in one statement, with the
      // data version in it (then the kept total) unless the offset is deep; a page without
      // events: the version alone, then the page again.
      const fused = async (versioned: boolean) =>
        eventPageFromRows(await rows(SQL.eventPage(from, where, perPage, offset, versioned), params));
      if (offset <= PARALLEL_PAGE_MAX_OFFSET) {
        read = await fused(true);
        let version = read.version;
        if (version === undefined) {
          version = await currentVersion();
          read = await fused(false);
        }
        notFound((count = await total(version)));
      } else {
        notFound((count = await total()));
        read = await fused(false);
      }
    }
    const password = one('password');
    const items = await mapEvents(
      read.events,
      ctx,
      (event) => ({ blanked: isLocked(event, ctx, password) }),
      read.links,
    );
    return renderListPage(code, 'events', items, count, page, perPage, query, ctx, path);
  }

  /* ---- GET /events/:id, /events/by-slug/:slug ---- */
  async function single(ref: { id: number } | { slug: string }, query: URLSearchParams, ctx: Ctx) {
    let id = 'id' in ref ? ref.id : 0;
    if ('slug' in ref && ref.slug !== '') {
      for (const candidate of [ctx.language, code.language.otherLanguage(ctx.language)]) {
        const [row] = await rows(SQL.eventIdBySlug, [candidate, ref.slug]);
        if (row) {
          id = num(row.s_event_id);
          break;
        }
      }
    }
    const valid = id > 0 && id <= 2 ** 31 - 1;
    // EventsService.get: the link rows beside the event.
    const [events, known] = await Promise.all([
      valid ? loadEvents([id]) : new Map<number, Event>(),
      linkRows(valid ? [id] : []),
    ]);
    const event = events.get(id);
    if (!event || event.translations.length === 0) throw new HttpError(404, 'rest-event-not-found');
    if (!code.policy.AccessPolicy.canSeeItem(ctx.user, event))
      throw new HttpError(403, event.status === 'trash' ? 'event-no-longer-available' : 'event-not-accessible');
    if (isLocked(event, ctx, query.get('password') ?? undefined)) throw new HttpError(403, 'event-password-protected');
    const [record] = await mapEvents([event], ctx, () => ({ withJsonLd: true }), known);
    return record;
  }

  /* ---- POST /events: EventsService.create with IDs for its links ---- */
  async function create(body: Record<string, unknown>, ctx: Ctx) {
    if (!code.policy.AccessPolicy.canCreateItem(ctx.user)) throw new HttpError(ctx.user ? 403 : 401, 'rest_forbidden');
    if (typeof body.title !== 'string' || body.title.trim() === '' || body.start_date === undefined || body.end_date === undefined)
      throw new HttpError(400, 'rest_missing_callback_param');
    const input = body as Parameters<EventWriteModule['eventColumns']>[0];
    const columns = {
      ...code.eventWrite.eventColumns(input, undefined, { siteZone, passwordKey }),
      ...code.contentWrite.postColumns(input, ctx, siteZone, true),
    };
    const ids = (value: unknown): number[] | undefined => {
      if (value === undefined) return undefined;
      const list = code.inputParsing.parseList(value);
      if (!list || list.some((v) => !/^\d+$/.test(String(v)))) throw new HttpError(400, 'rest_invalid_param');
      return list.map(Number);
    };
    const venueId = body.venue === undefined ? undefined : Number(body.venue) || null;
    const organizerIds = ids(body.organizer);
    const categoryIds = ids(body.categories);
    const tagIds = ids(body.tags);

    const written = await writeTransaction(async (connection) => {
      const q = (sql: string, params: unknown[]) => rows(sql, params, connection);
      // Writes.run's readAhead: the webhook endpoints (the outbox's read) first.
      await q(SQL.endpoints, []);
      if (venueId) {
        const [row] = await q(SQL.usableVenues(1), [venueId, 'trash']);
        if (num(row.cnt) !== 1) throw new HttpError(400, 'rest_invalid_param');
      }
      if (organizerIds?.length) {
        const unique = [...new Set(organizerIds)];
        const [row] = await q(SQL.usableOrganizers(unique.length), [...unique, 'trash']);
        if (num(row.cnt) !== unique.length) throw new HttpError(400, 'rest_invalid_param');
      }
      const insert = { ...columns, venueId: venueId ?? null, parentId: null } as Record<string, unknown>;
      const insertColumns: Array<[string, string]> = [
        ['author_id', 'authorId'], ['status', 'status'], ['published_at', 'publishedAt'],
        ['modified_at', 'modifiedAt'], ['image_id', 'imageId'], ['image_url', 'imageUrl'], ['timezone', 'timezone'],
        ['start_local', 'startLocal'], ['end_local', 'endLocal'], ['start_at', 'startAt'], ['end_at', 'endAt'],
        ['all_day', 'allDay'], ['cost', 'cost'], ['website', 'website'], ['show_map', 'showMap'],
        ['show_map_link', 'showMapLink'], ['hide_from_listings', 'hideFromListings'], ['sticky', 'sticky'],
        ['featured', 'featured'], ['ticketed', 'ticketed'], ['parent_id', 'parentId'],
        ['password_hash', 'passwordHash'], ['venue_id', 'venueId'],
      ].filter(([, property]) => insert[property] !== undefined) as Array<[string, string]>;
      // insertRow: only the columns the write sets, the others take their defaults.
      const [result] = await connection.query(
        `INSERT INTO \`events\` (${insertColumns.map(([column]) => `\`${column}\``).join(', ')}) VALUES (${placeholders(insertColumns.length)})`,
        insertColumns.map(([, property]) => insert[property]),
      );
      const eventId = (result as { insertId: number }).insertId;
      const language = ctx.language;
      const base = code.slugs.toSlug(typeof body.slug === 'string' && body.slug ? body.slug : String(body.title), 'event');
      const taken = await q(SQL.slugFamily, [language, base, `${base}-%`]);
      const slug = code.slugs.firstFreeSlug(
        base,
        taken.filter((row) => num(row.s_event_id) !== eventId).map((row) => String(row.s_slug)),
      );
      await q(SQL.insertTranslation, [
        language,
        slug,
        typeof body.description === 'string' ? body.description : null,
        typeof body.excerpt === 'string' ? body.excerpt : null,
        eventId,
        body.title,
      ]);
      // writeEventLinks of a new event: its organizer links before the terms are locked.
      if (organizerIds?.length)
        await q(SQL.insertOrganizers(organizerIds.length), organizerIds.flatMap((o, position) => [eventId, o, position]));
      const termIds = [...new Set([...(categoryIds ?? []), ...(tagIds ?? [])])];
      // The answer's rows before the lock: the event, then its terms, organizers and venue (link rows known).
      const event = (await loadEvents([eventId], connection)).get(eventId) as Event;
      const known: LinkRows = {
        termLinks: termIds.map((termId) => ({ et_event_id: eventId, et_term_id: termId }) as Row),
        organizerLinks: (organizerIds ?? []).map((organizerId) => ({ eo_event_id: eventId, eo_organizer_id: organizerId }) as Row),
      };
      const linked = await readLinked([event], known, connection);
      // lockTermsReadingCounts: the terms write-locked in ID order, their IDs checked from the same read.
      const lockIds = [...termIds].sort((a, b) => a - b);
      const locked = new Map(
        lockIds.length > 0
          ? (await q(SQL.lockTerms(lockIds.length), lockIds)).map((row) => [num(row.id), { taxonomy: String(row.taxonomy), count: num(row.count) }])
          : [],
      );
      for (const [info, list] of [[CATEGORIES, categoryIds], [TAGS, tagIds]] as const)
        if ((list ?? []).some((termId) => locked.get(termId)?.taxonomy !== info.taxonomy)) throw new HttpError(400, 'rest_invalid_param');
      if (termIds.length > 0) await q(SQL.insertTerms(termIds.length), termIds.flatMap((t) => [eventId, t]));
      // adjustTermCounts with what the write knows (countedTermsOfNewEvent): no read.
      const counted = columns.status === 'publish' ? [...termIds].sort((a, b) => a - b) : [];
      if (counted.length > 0) await q(SQL.adjustTerms(counted.length), [1, ...counted]);
      // countedFromLock: the answer's counts are the locking read's plus this create's own.
      for (const [termId, term] of linked.terms) {
        const found = locked.get(termId);
        if (found) term.publishedCount = found.count + (counted.includes(termId) ? 1 : 0);
      }
      // ChangeTracker: the sequence with the data version, the change rows.
      const changes = [...counted.map((termId) => [locked.get(termId)?.taxonomy === TAGS.taxonomy ? 'tag' : 'category', termId]), ['event', eventId]];
      const [bumped] = await connection.query(SQL.takeSequence, [changes.length]);
      const last = num((bumped as { insertId: number }).insertId);
      const now = Math.floor(Date.now() / 1000);
      await q(
        SQL.upsertChanges(changes.length),
        changes.flatMap(([kind, recordId], i) => [kind, recordId, last - changes.length + 1 + i, 0, now]),
      );
      return { event, known, linked };
    });
    // The answer is mapped after COMMIT (EventWrites.answerOf).
    const { event, known, linked } = written;
    const [record] = eventRecords([event], mapLinked([event], known, linked, ctx), ctx);
    return record;
  }

  /* writeTransaction: retried on deadlocks, lock timeouts and duplicate keys. */
  async function writeTransaction<R>(work: (connection: PoolConnection) => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      const connection = await pool.getConnection();
      try {
        await connection.query('START TRANSACTION');
        const result = await work(connection);
        await connection.query('COMMIT');
        return result;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => undefined);
        const errno = (error as { errno?: number }).errno;
        const retryable = errno === 1213 || errno === 1205 || errno === 1062;
        if (!retryable || attempt >= WRITE_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
      } finally {
        connection.release();
      }
    }
  }

  async function authenticate(req: IncomingMessage): Promise<AuthUser | undefined> {
    const header = req.headers.authorization;
    if (!header) return undefined;
    const token = /^Bearer (.+)$/i.exec(header)?.[1];
    if (!token || token.length > 8192) throw new HttpError(401, 'rest_forbidden');
    try {
      const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'] });
      const id = code.inputParsing.parseId(typeof payload.sub === 'string' ? payload.sub : undefined);
      const role = (payload as { role?: unknown }).role;
      if (id !== undefined && code.authUser.isRole(role)) return { id, role };
    } catch {
      // falls through to 401
    }
    throw new HttpError(401, 'rest_forbidden');
  }

  function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > BODY_LIMIT) reject(new HttpError(413, 'rest_payload_too_large'));
        else chunks.push(chunk);
      });
      req.on('end', () => {
        try {
          const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (!parsed || typeof parsed !== 'object') throw new Error('not an object');
          resolve(parsed as Record<string, unknown>);
        } catch {
          reject(new HttpError(400, 'rest_invalid_json'));
        }
      });
      req.on('error', reject);
    });
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const json = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(json)),
      'X-Request-Id': randomUUID(),
      ...headers,
    });
    res.end(json);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [path, search = ''] = (req.url ?? '/').split('?', 2);
    const query = new URLSearchParams(search);
    const host = req.headers.host ?? 'localhost';
    const resolution = code.language.resolveLanguage({
      parameter: query.get('language') ?? undefined,
      acceptLanguage: req.headers['accept-language'],
      defaultLanguage,
    });
    if (!resolution.ok) throw new HttpError(400, 'rest_invalid_param');
    const ctx: Ctx = {
      language: resolution.language,
      apiUrl: `http://${host}${API_PATH}`,
      host,
      user: await authenticate(req),
    };
    const route = path.startsWith(`${API_PATH}/events`) ? path.slice(API_PATH.length + '/events'.length) : undefined;
    if (route === undefined) throw new HttpError(404, 'rest_no_route');
    if (req.method === 'GET' && route === '') {
      const page = await list(query, ctx, path);
      return send(res, 200, page.body, page.headers);
    }
    if (req.method === 'POST' && route === '') {
      const record = await create(await readBody(req), ctx);
      return send(res, 201, record, { Location: record.rest_url });
    }
    const bySlug = /^\/by-slug\/([^/]+)$/.exec(route);
    if (req.method === 'GET' && bySlug) return send(res, 200, await single({ slug: decodeURIComponent(bySlug[1]) }, query, ctx));
    const byId = /^\/(\d+)$/.exec(route);
    if (req.method === 'GET' && byId) return send(res, 200, await single({ id: Number(byId[1]) }, query, ctx));
    throw new HttpError(404, 'rest_no_route');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      if (error instanceof HttpError) {
        send(res, error.status, { code: error.code, message: error.code, data: { status: error.status } });
      } else {
        process.stderr.write(`baseline: ${(error as Error).stack ?? String(error)}\n`);
        send(res, 500, { code: 'rest_internal_error', message: 'internal error', data: { status: 500 } });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : options.port,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await pool.end();
    },
  };
}

/** ListPageInterceptor.renderListPage, on the raw query string (same normalisation as pageUrl). */
export function renderListPage(
  code: Pick<Code, 'listPage'>,
  key: string,
  items: unknown[],
  total: number,
  page: number,
  perPage: number,
  query: URLSearchParams,
  ctx: Ctx,
  path: string,
) {
  const pages = code.listPage.totalPages(total, perPage);
  const url = (p: number | undefined) => pageUrl(query, ctx, path, p);
  const next = page < pages ? url(page + 1) : undefined;
  const previous = page > 1 && page - 1 <= Math.max(pages, 1) ? url(page - 1 > 1 ? page - 1 : undefined) : undefined;
  const headers: Record<string, string> = { 'X-Total': String(total), 'X-TotalPages': String(pages) };
  const links = [next && `<${next}>; rel="next"`, previous && `<${previous}>; rel="prev"`].filter(Boolean);
  if (links.length > 0) headers.Link = links.join(', ');
  return {
    headers,
    body: {
      [key]: items,
      rest_url: url(page),
      ...(next ? { next_rest_url: next } : {}),
      ...(previous ? { previous_rest_url: previous } : {}),
      total,
      total_pages: pages,
      ...(key === 'events' ? { ical_url: feedUrl(query, ctx, path) } : {}),
    },
  };
}

/** feedUrl of list-page.interceptor.ts: `<path>.ics`, without the paging parameters and `password`. */
export function feedUrl(query: URLSearchParams, ctx: Ctx, path: string): string {
  const [base, search = ''] = pageUrl(query, ctx, path, undefined).split('?');
  const kept = search.split('&').filter((pair) => pair !== '' && !/^(per_page|password)=/.test(pair));
  return `${base}.ics${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
}

/** pageUrl of list-page.interceptor.ts: parameters as sent (repeated keys comma-joined), `page` last. */
export function pageUrl(query: URLSearchParams, ctx: Ctx, path: string, page: number | undefined): string {
  const values = new Map<string, string[]>();
  for (const [key, value] of query) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    if (name === 'page') continue;
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  const pairs = [...values].map(
    ([key, list]) => `${encodeURIComponent(key)}=${encodeURIComponent(list.join(',')).replace(/%2C/gi, ',')}`,
  );
  if (page !== undefined) pairs.push(`page=${page}`);
  return `http://${ctx.host}${path}${pairs.length > 0 ? `?${pairs.join('&')}` : ''}`;
}

/** Nothing of Nest, Express or TypeORM may be loaded into the baseline. */
export function frameworkModulesLoaded(): string[] {
  return Object.keys(require.cache).filter((file) =>
    /[\\/]node_modules[\\/](@nestjs|typeorm|express|class-validator|class-transformer|rxjs)[\\/]/.test(file),
  );
}

async function main(): Promise<void> {
  const env = (name: string, fallback?: string): string => {
    const value = process.env[name] ?? fallback;
    if (value === undefined || value === '') throw new Error(`baseline: ${name} is not set`);
    return value;
  };
  const baseline = await startBaseline({
    databaseUrl: env('DATABASE_URL'),
    port: Number(env('PORT', '3002')),
    codeRoot: env('BASELINE_CODE_ROOT'),
    publicSiteUrl: env('PUBLIC_SITE_URL', 'http://localhost:3000'),
    siteTimezone: env('SITE_TIMEZONE', 'UTC'),
    jwtSecret: env('AUTH_JWT_SECRET'),
    defaultLanguage: (process.env.DEFAULT_LANGUAGE as Language | undefined) ?? 'nl',
    maxPerPage: Number(process.env.MAX_PER_PAGE ?? 50),
  });
  const loaded = frameworkModulesLoaded();
  if (loaded.length > 0) throw new Error(`baseline: framework modules were loaded: ${loaded.slice(0, 3).join(', ')}`);
  const stop = () => {
    void baseline.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`baseline listening on ${baseline.port}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
