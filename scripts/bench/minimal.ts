/*
 * The benchmark's second reference: a minimal raw server, never part of the
 * service. Where the baseline (./baseline.ts) sends the service's own SQL
 * statements, this one sends as few as the answers allow, to show what plain
 * `node:http` + `mysql2` reach on the same data and the same mappers:
 *
 * - a list is ONE statement: the `data_version` row; the total only when the
 *   count cached for these filters was counted at another version (a `CASE`
 *   on the cached version); the page of IDs from the listing index (a derived
 *   table); each event of the page with its translations (`JSON_ARRAYAGG`)
 *   and its term and organizer IDs (`GROUP_CONCAT`);
 * - a single read by ID or slug is one statement of the same shape;
 * - the venue, organizer and term records events embed are mapped once per
 *   language and host and kept in process until `data_version` changes; a
 *   miss costs one more round (three reads in parallel); so does a category
 *   slug not resolved at the current version;
 * - the body is JSON.stringify'd and written directly (no framework, no ETag,
 *   no request ID, no log line).
 *
 * It builds the very same plain objects as the baseline (whose row converters
 * it shares) and passes them to the service's own PURE mappers loaded from
 * `dist/`, so the bench can check that its status, list headers and JSON bytes
 * are those of the service before timing anything.
 *
 * It answers only anonymous reads (GET /events with the filters of the request
 * sets: dates, categories, search, page, per_page, password, language;
 * GET /events/:id and /events/by-slug/:slug); anything else is a bare 4xx.
 *
 * Run directly (the bench does this, after transpiling it and baseline.ts to plain JS):
 *   BASELINE_CODE_ROOT=dist DATABASE_URL=mysql://… PORT=3903 node minimal.js
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Pool } from 'mysql2/promise';
import {
  Code,
  Ctx,
  EVENT_COLUMNS,
  eventFromRow,
  frameworkModulesLoaded,
  HttpError,
  ListFilters,
  listWhere,
  loadCode,
  num,
  organizersFromRows,
  poolOptions,
  renderListPage,
  Row,
  SQL,
  termsFromRows,
  venuesFromRows,
  type Baseline,
  type BaselineOptions,
} from './baseline';

type Event = import('../../src/events/entities/event.entity').Event;
type EventTranslation =
  import('../../src/events/entities/event-translation.entity').EventTranslation;
type EventLinks = import('../../src/events/event.mapper').EventLinks;
type TermRecord = import('../../src/terms/term.mapper').TermRecord;
type VenueRecord = import('../../src/venues/venue.mapper').VenueRecord;
type OrganizerRecord = import('../../src/organizers/organizer.mapper').OrganizerRecord;
type Language = import('../../src/i18n/language').Language;
type ContentMapOptions = import('../../src/posts/content-record').ContentMapOptions;

/** Started like the baseline, from the same options. */
export type MinimalOptions = BaselineOptions;
export type Minimal = Baseline;

const API_PATH = '/calendar/events/v1';
/** As the service's CountCacheService. */
const COUNT_CACHE_ENTRIES = 1000;
const COUNT_MAX_AGE_MS = 60_000;
/** Rounds a request may restart because the data version moved under a cached category slug. */
const VERSION_RETRIES = 3;

/* ---- the statements ---- */

const EVENT_SELECT = EVENT_COLUMNS.map((name) => `e.\`${name}\` AS \`r_${name}\``).join(', ');
/** An event's translations, term IDs and organizer IDs (by position), beside its columns. */
const EVENT_EXTRAS =
  '(SELECT JSON_ARRAYAGG(JSON_OBJECT(' +
  "'id', t.`id`, 'language', t.`language`, 'slug', t.`slug`, 'description', t.`description`, " +
  "'excerpt', t.`excerpt`, 'eventId', t.`event_id`, 'title', t.`title`)) " +
  'FROM `event_translations` t WHERE t.`event_id` = e.`id`) AS `translations`, ' +
  '(SELECT GROUP_CONCAT(et.`term_id`) FROM `event_terms` et WHERE et.`event_id` = e.`id`) AS `term_ids`, ' +
  '(SELECT GROUP_CONCAT(eo.`organizer_id` ORDER BY eo.`position`) FROM `event_organizers` eo ' +
  'WHERE eo.`event_id` = e.`id`) AS `organizer_ids`';

/**
 * One statement for a page of events: its first column is the data version,
 * its second the total (NULL when the cached one, counted at the version
 * passed first, still holds). An empty page is one row of NULL event columns.
 */
function listSql(
  from: string,
  where: string,
  perPage: number,
  offset: number,
  distinct: boolean,
): string {
  const count = `SELECT COUNT(${distinct ? 'DISTINCT `e`.`id`' : '1'}) FROM ${from} WHERE ${where}`;
  return (
    `SELECT dv.\`version\` AS \`dv_version\`, CASE WHEN dv.\`version\` = ? THEN NULL ELSE (${count}) END AS \`total\`, ` +
    `${EVENT_SELECT}, ${EVENT_EXTRAS} ` +
    'FROM `data_version` dv LEFT JOIN (' +
    `(SELECT \`e\`.\`id\` AS \`id\` FROM ${from} WHERE ${where} ORDER BY \`e\`.\`start_at\` ASC, \`e\`.\`id\` ASC ` +
    `LIMIT ${perPage} OFFSET ${offset}) p JOIN \`events\` e ON e.\`id\` = p.\`id\`` +
    ') ON 1 = 1 WHERE dv.`id` = 1 ORDER BY e.`start_at` ASC, e.`id` ASC'
  );
}

const SINGLE_BY_ID_SQL =
  `SELECT dv.\`version\` AS \`dv_version\`, ${EVENT_SELECT}, ${EVENT_EXTRAS} ` +
  'FROM `data_version` dv LEFT JOIN `events` e ON e.`id` = ? WHERE dv.`id` = 1';

/** The slug in the request's language first, else in the other one (findPostId). */
const SINGLE_BY_SLUG_SQL =
  `SELECT dv.\`version\` AS \`dv_version\`, ${EVENT_SELECT}, ${EVENT_EXTRAS} ` +
  'FROM `data_version` dv LEFT JOIN (' +
  'SELECT s.`event_id` FROM `event_translations` s WHERE s.`language` IN (?, ?) AND s.`slug` = ? ' +
  'ORDER BY s.`language` = ? DESC LIMIT 1' +
  ') s ON 1 = 1 LEFT JOIN `events` e ON e.`id` = s.`event_id` WHERE dv.`id` = 1';

/** Category slugs to term IDs, with the version they were resolved at. */
const CATEGORY_SQL = (n: number) =>
  `SELECT (SELECT \`version\` FROM \`data_version\` WHERE \`id\` = 1) AS \`dv_version\`, tt.\`term_id\`, tt.\`slug\` ` +
  `FROM \`term_translations\` tt WHERE tt.\`slug\` IN (${Array.from({ length: n }, () => '?').join(', ')}) AND tt.\`taxonomy\` = ?`;

/* ---- rows ---- */

const idList = (value: unknown): number[] =>
  value === null || value === undefined || value === '' ? [] : String(value).split(',').map(Number);

function eventOf(row: Row): Event | undefined {
  if (row.r_id === null || row.r_id === undefined) return undefined;
  const raw = row.translations;
  // MariaDB answers JSON as text; MySQL as a JSON column mysql2 already parsed.
  const translations = (
    raw === null ? [] : typeof raw === 'string' ? JSON.parse(raw) : raw
  ) as EventTranslation[];
  return eventFromRow(row, translations);
}

/** An event of a statement's row with the IDs of what it links to. */
interface Loaded {
  event: Event;
  termIds: number[];
  organizerIds: number[];
}

function loadedOf(row: Row): Loaded | undefined {
  const event = eventOf(row);
  return event && { event, termIds: idList(row.term_ids), organizerIds: idList(row.organizer_ids) };
}

/** Mapped linked records of one language and host; null: no such record (or none shown). */
interface Linked {
  terms: Map<number, TermRecord | null>;
  venues: Map<number, VenueRecord | null>;
  organizers: Map<number, OrganizerRecord | null>;
}

export async function startMinimal(options: MinimalOptions): Promise<Minimal> {
  const code: Code = await loadCode(options.codeRoot);
  const { createPool } = await import('mysql2/promise');
  const { DateTime } = await import('luxon');
  const pool: Pool = createPool(poolOptions(options.databaseUrl, options.connectionLimit ?? 10));
  // JSON_ARRAYAGG is bounded by group_concat_max_len: room for long descriptions.
  pool.pool.on('connection', (connection) => {
    connection.query('SET SESSION group_concat_max_len = 16777216');
  });

  const siteUrl = options.publicSiteUrl.replace(/\/+$/, '');
  const siteZone = options.siteTimezone;
  const zone = code.dates.parseZone(siteZone);
  if (!zone) throw new Error(`minimal: bad site time zone ${siteZone}`);
  const defaultLanguage = options.defaultLanguage ?? 'nl';
  const maxPerPage = options.maxPerPage ?? 50;
  const passwordKey = code.password.passwordKey(options.jwtSecret);
  const { CATEGORIES, TAGS } = code.taxonomies;

  /* ---- what is kept per data version ---- */
  let version = -1;
  const linkedByContext = new Map<string, Linked>();
  const counts = new Map<string, { version: number; count: number; at: number }>();
  const categorySlugs = new Map<string, { version: number; ids: number[] }>();

  /** A statement's data version: a newer one empties the linked records. */
  function seen(current: number): void {
    if (current > version) {
      version = current;
      linkedByContext.clear();
    }
  }

  const rows = async (sql: string, params: unknown[]) => (await pool.query<Row[]>(sql, params))[0];

  /** The records a page embeds, from the cache; the misses in one more round. */
  async function linkedFor(loaded: Loaded[], ctx: Ctx, at: number): Promise<Linked> {
    const key = `${ctx.language} ${ctx.apiUrl}`;
    let linked = linkedByContext.get(key);
    if (!linked) {
      linked = { terms: new Map(), venues: new Map(), organizers: new Map() };
      // Records read at an older version than the cache's are used once, not kept.
      if (at === version) linkedByContext.set(key, linked);
    }
    const missing = <T>(cache: Map<number, T>, ids: Iterable<number>) =>
      [...new Set(ids)].filter((id) => !cache.has(id));
    const termIds = missing(
      linked.terms,
      loaded.flatMap((l) => l.termIds),
    );
    const venueIds = missing(
      linked.venues,
      loaded.flatMap((l) => (l.event.venueId ? [l.event.venueId] : [])),
    );
    const organizerIds = missing(
      linked.organizers,
      loaded.flatMap((l) => l.organizerIds),
    );
    if (termIds.length + venueIds.length + organizerIds.length === 0) return linked;
    const [terms, venues, organizers] = await Promise.all([
      termIds.length ? rows(SQL.terms(termIds.length), termIds).then(termsFromRows) : undefined,
      venueIds.length
        ? rows(SQL.venues(venueIds.length), venueIds).then(venuesFromRows)
        : undefined,
      organizerIds.length
        ? rows(SQL.organizers(organizerIds.length), organizerIds).then(organizersFromRows)
        : undefined,
    ]);
    const contentOptions = (names: ContentMapOptions['names']): ContentMapOptions => ({
      language: ctx.language,
      apiUrl: ctx.apiUrl,
      siteUrl,
      siteZone,
      names,
      withJsonLd: false,
      withTranslations: false,
    });
    for (const id of termIds) {
      const term = terms?.get(id);
      const info = term?.taxonomy === CATEGORIES.taxonomy ? CATEGORIES : TAGS;
      linked.terms.set(
        id,
        term && term.translations.length > 0
          ? code.termMapper.mapTerm(term, info, {
              language: ctx.language,
              apiUrl: ctx.apiUrl,
              siteUrl,
              withTranslations: false,
            })
          : null,
      );
    }
    const venueOptions = contentOptions({
      titleWire: 'venue',
      collection: 'venues',
      permalinkPath: 'venue',
    });
    for (const id of venueIds) {
      const venue = venues?.get(id);
      linked.venues.set(id, venue ? code.venueMapper.mapVenue(venue, venueOptions) : null);
    }
    const organizerOptions = contentOptions({
      titleWire: 'organizer',
      collection: 'organizers',
      permalinkPath: 'organizer',
    });
    for (const id of organizerIds) {
      const organizer = organizers?.get(id);
      linked.organizers.set(
        id,
        organizer ? code.organizerMapper.mapOrganizer(organizer, organizerOptions) : null,
      );
    }
    return linked;
  }

  const visible = <R extends VenueRecord | OrganizerRecord>(record: R | null | undefined) =>
    record &&
    code.policy.AccessPolicy.canSeeItem(undefined, {
      authorId: Number(record.author),
      status: record.status,
    })
      ? record
      : undefined;

  function linksOf({ event, termIds, organizerIds }: Loaded, linked: Linked): EventLinks {
    const terms = termIds
      .flatMap((id) => linked.terms.get(id) ?? [])
      .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
    return {
      categories: terms.filter((term) => term.taxonomy === CATEGORIES.taxonomy),
      tags: terms.filter((term) => term.taxonomy === TAGS.taxonomy),
      venue: event.venueId ? visible(linked.venues.get(event.venueId)) : undefined,
      organizers: organizerIds.flatMap((id) => visible(linked.organizers.get(id)) ?? []),
    };
  }

  function isLocked(event: Event, password: string | undefined): boolean {
    return (
      event.passwordHash !== null &&
      !code.password.passwordMatches(passwordKey, event.passwordHash, password)
    );
  }

  async function mapAll(
    loaded: Loaded[],
    ctx: Ctx,
    at: number,
    extra: (event: Event) => { withJsonLd?: boolean; blanked?: boolean },
  ) {
    const linked = loaded.length > 0 ? await linkedFor(loaded, ctx, at) : undefined;
    return loaded.map((item) =>
      code.eventMapper.mapEvent(item.event, linksOf(item, linked as Linked), {
        language: ctx.language,
        apiUrl: ctx.apiUrl,
        siteUrl,
        siteZone,
        withJsonLd: false,
        withTranslations: false,
        blanked: false,
        ...extra(item.event),
      }),
    );
  }

  /** Category slugs as term IDs, resolved once per data version; 400 for an unknown one. */
  async function categoryIds(
    slugs: string[],
    retry: boolean,
  ): Promise<{ version: number; ids: number[] }> {
    const key = slugs.join(',');
    const known = categorySlugs.get(key);
    if (known && !retry) return known;
    const found = await rows(CATEGORY_SQL(slugs.length), [...slugs, CATEGORIES.taxonomy]);
    if (new Set(found.map((t) => t.slug)).size !== new Set(slugs).size)
      throw new HttpError(400, 'rest_invalid_param');
    const resolved = {
      version: num(found[0].dv_version),
      ids: [...new Set(found.map((t) => num(t.term_id)))],
    };
    categorySlugs.set(key, resolved);
    if (categorySlugs.size > COUNT_CACHE_ENTRIES)
      categorySlugs.delete(categorySlugs.keys().next().value as string);
    return resolved;
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
    const slugs = one('categories')?.split(',').filter(Boolean);
    const words = code.search.searchWords(one('search') ?? '');
    for (const name of ['start_date', 'end_date'])
      if (one(name) !== undefined && !code.dates.isDateInput(one(name)))
        throw new HttpError(400, 'rest_invalid_param');
    const window = code.dateWindow.eventWindow(
      { start_date: one('start_date'), end_date: one('end_date') },
      zone as NonNullable<typeof zone>,
      DateTime.now(),
    );
    const offset = (page - 1) * perPage;
    for (let attempt = 0; ; attempt++) {
      const categories = slugs?.length ? await categoryIds(slugs, attempt > 0) : undefined;
      const filters: ListFilters = {
        window,
        search: words.length > 0 ? { words, language: ctx.language } : undefined,
        categoryIds: categories?.ids,
      };
      const { from, where, params } = listWhere(filters, code);
      const countKey = `events:${JSON.stringify(filters)}`;
      const cached = counts.get(countKey);
      const fresh = cached && Date.now() - cached.at < COUNT_MAX_AGE_MS ? cached : undefined;
      const result = await rows(
        listSql(from, where, perPage, offset, filters.search !== undefined),
        [fresh ? fresh.version : -1, ...params, ...params],
      );
      const at = num(result[0].dv_version);
      seen(at);
      // The slugs were resolved at another version: they may name other terms now.
      if (categories && categories.version !== at && attempt < VERSION_RETRIES) continue;
      let total: number;
      if (result[0].total === null && fresh) {
        total = fresh.count;
        counts.delete(countKey);
        counts.set(countKey, fresh);
      } else {
        total = num(result[0].total);
        counts.set(countKey, { version: at, count: total, at: Date.now() });
        if (counts.size > COUNT_CACHE_ENTRIES) counts.delete(counts.keys().next().value as string);
      }
      const pages = code.listPage.totalPages(total, perPage);
      if (page > 1 && page > pages) throw new HttpError(404, 'event-archive-page-not-found');
      const loaded = result.flatMap((row) => loadedOf(row) ?? []);
      const password = one('password');
      const items = await mapAll(loaded, ctx, at, (event) => ({
        blanked: isLocked(event, password),
      }));
      return renderListPage(code, 'events', items, total, page, perPage, query, ctx, path);
    }
  }

  /* ---- GET /events/:id, /events/by-slug/:slug ---- */
  async function single(ref: { id: number } | { slug: string }, query: URLSearchParams, ctx: Ctx) {
    let result: Row[];
    if ('id' in ref) {
      if (!(ref.id > 0 && ref.id <= 2 ** 31 - 1)) throw new HttpError(404, 'rest-event-not-found');
      result = await rows(SINGLE_BY_ID_SQL, [ref.id]);
    } else {
      if (ref.slug === '') throw new HttpError(404, 'rest-event-not-found');
      const other = code.language.otherLanguage(ctx.language);
      result = await rows(SINGLE_BY_SLUG_SQL, [ctx.language, other, ref.slug, ctx.language]);
    }
    const at = num(result[0].dv_version);
    seen(at);
    const loaded = loadedOf(result[0]);
    if (!loaded || loaded.event.translations.length === 0)
      throw new HttpError(404, 'rest-event-not-found');
    const { event } = loaded;
    if (!code.policy.AccessPolicy.canSeeItem(undefined, event))
      throw new HttpError(
        403,
        event.status === 'trash' ? 'event-no-longer-available' : 'event-not-accessible',
      );
    if (isLocked(event, query.get('password') ?? undefined))
      throw new HttpError(403, 'event-password-protected');
    const [record] = await mapAll([loaded], ctx, at, () => ({ withJsonLd: true }));
    return record;
  }

  function send(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    const json = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(json)),
      ...headers,
    });
    res.end(json);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [path, search = ''] = (req.url ?? '/').split('?', 2);
    const route = path.startsWith(`${API_PATH}/events`)
      ? path.slice(API_PATH.length + '/events'.length)
      : undefined;
    if (req.method !== 'GET' || route === undefined) throw new HttpError(404, 'rest_no_route');
    // Anonymous reads only: a caller's role would change what is listed.
    if (req.headers.authorization) throw new HttpError(400, 'minimal_server_reads_anonymously');
    const query = new URLSearchParams(search);
    const resolution = code.language.resolveLanguage({
      parameter: query.get('language') ?? undefined,
      acceptLanguage: req.headers['accept-language'],
      defaultLanguage,
    });
    if (!resolution.ok) throw new HttpError(400, 'rest_invalid_param');
    const host = req.headers.host ?? 'localhost';
    const ctx: Ctx = { language: resolution.language, apiUrl: `http://${host}${API_PATH}`, host };
    if (route === '') {
      const page = await list(query, ctx, path);
      return send(res, 200, page.body, page.headers);
    }
    const bySlug = /^\/by-slug\/([^/]+)$/.exec(route);
    if (bySlug)
      return send(res, 200, await single({ slug: decodeURIComponent(bySlug[1]) }, query, ctx));
    const byId = /^\/(\d+)$/.exec(route);
    if (byId) return send(res, 200, await single({ id: Number(byId[1]) }, query, ctx));
    throw new HttpError(404, 'rest_no_route');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      if (error instanceof HttpError) {
        send(res, error.status, {
          code: error.code,
          message: error.code,
          data: { status: error.status },
        });
      } else {
        process.stderr.write(`minimal: ${(error as Error).stack ?? String(error)}\n`);
        send(res, 500, {
          code: 'rest_internal_error',
          message: 'internal error',
          data: { status: 500 },
        });
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

async function main(): Promise<void> {
  const env = (name: string, fallback?: string): string => {
    const value = process.env[name] ?? fallback;
    if (value === undefined || value === '') throw new Error(`minimal: ${name} is not set`);
    return value;
  };
  const minimal = await startMinimal({
    databaseUrl: env('DATABASE_URL'),
    port: Number(env('PORT', '3003')),
    codeRoot: env('BASELINE_CODE_ROOT'),
    publicSiteUrl: env('PUBLIC_SITE_URL', 'http://localhost:3000'),
    siteTimezone: env('SITE_TIMEZONE', 'UTC'),
    jwtSecret: env('AUTH_JWT_SECRET'),
    defaultLanguage: (process.env.DEFAULT_LANGUAGE as Language | undefined) ?? 'nl',
    maxPerPage: Number(process.env.MAX_PER_PAGE ?? 50),
  });
  const loaded = frameworkModulesLoaded();
  if (loaded.length > 0)
    throw new Error(`minimal: framework modules were loaded: ${loaded.slice(0, 3).join(', ')}`);
  const stop = () => {
    void minimal.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`minimal listening on ${minimal.port}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
