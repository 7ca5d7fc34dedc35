import { DateTime } from 'luxon';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { sendRaw } from './http';

export const API = '/calendar/events/v1';
/** Every request of the bench names this host, so both servers build the same URLs. */
export const BENCH_HOST = 'calendar.bench';
/** Author of the events the bench creates: they are removed again afterwards (cleanupCreated). */
export const BENCH_AUTHOR_ID = 2147000001;

export type SetKey = 'list' | 'month' | 'page200' | 'search' | 'id' | 'slug' | 'create';
export const SET_KEYS: SetKey[] = ['list', 'month', 'page200', 'search', 'id', 'slug', 'create'];

export interface RequestSet {
  key: SetKey;
  /** For the tables. */
  label: string;
  method: 'GET' | 'POST';
  path: string;
  /** POST only: the n-th body (unique title, so no slug suffix search). */
  body?: (n: number, tag: string) => string;
  /** Needs the editor token. */
  auth?: boolean;
}

/** What the request sets are built from, found in the data. */
export interface BenchData {
  events: number;
  month: { start: string; end: string };
  category: { id: number; slug: string };
  wide: { start: string; end: string; page: number; pages: number };
  searchWord: string;
  event: { id: number; slug: string };
  create: { categories: number[]; tags: number[]; venue: number | null; organizers: number[] };
}

type Row = RowDataPacket & Record<string, unknown>;

async function rows(db: Connection, sql: string, params: unknown[] = []): Promise<Row[]> {
  return (await db.query<Row[]>(sql, params))[0];
}

/**
 * Picks the parameters of the request sets from the data: the category with
 * the most published events and a month in which it has events, a ten-year
 * window and its page 200 (or its last page on small data), the most frequent
 * word of upcoming titles, and an upcoming, public, unprotected event with a
 * venue and organizers for the single reads and as the model of the create body.
 */
export async function discoverBenchData(
  db: Connection,
  options: { siteZone: string; language?: string; servicePort: number; now?: DateTime },
): Promise<BenchData> {
  const language = options.language ?? 'nl';
  const now = (options.now ?? DateTime.now()).setZone(options.siteZone);
  const [{ n: events }] = await rows(db, 'SELECT COUNT(*) AS n FROM events');
  if (Number(events) === 0) throw new Error('the database has no events: run `npm run seed` first');

  const categories = await rows(
    db,
    `SELECT t.id, tt.slug FROM terms t JOIN term_translations tt ON tt.term_id = t.id AND tt.language = ?
     WHERE t.taxonomy = 'tribe_events_cat' ORDER BY t.published_count DESC, t.id LIMIT 2`,
    [language],
  );
  if (categories.length === 0) throw new Error(`no category has a slug in "${language}"`);
  const tags = await rows(
    db,
    `SELECT t.id FROM terms t WHERE t.taxonomy = 'post_tag' ORDER BY t.published_count DESC, t.id LIMIT 3`,
  );

  // A month (next month, else this one, else the one of an upcoming event) with events in the category.
  const category = { id: Number(categories[0].id), slug: String(categories[0].slug) };
  const monthHasEvents = async (start: DateTime) => {
    const [hit] = await rows(
      db,
      `SELECT 1 AS hit FROM events e WHERE e.status = 'publish' AND e.start_at >= ? AND e.start_at < ?
       AND e.hide_from_listings = 0
       AND EXISTS (SELECT 1 FROM event_terms et WHERE et.event_id = e.id AND et.term_id = ?) LIMIT 1`,
      [start.toSeconds(), start.plus({ months: 1 }).toSeconds(), category.id],
    );
    return hit !== undefined;
  };
  let month = now.plus({ months: 1 }).startOf('month');
  if (!(await monthHasEvents(month))) month = now.startOf('month');
  if (!(await monthHasEvents(month))) {
    const [first] = await rows(
      db,
      `SELECT e.start_at FROM events e JOIN event_terms et ON et.event_id = e.id AND et.term_id = ?
       WHERE e.status = 'publish' AND e.hide_from_listings = 0 ORDER BY e.start_at DESC LIMIT 1`,
      [category.id],
    );
    if (!first) throw new Error(`category ${category.slug} has no published events`);
    month = DateTime.fromSeconds(Number(first.start_at), { zone: options.siteZone }).startOf('month');
  }

  // Ten calendar years around today; page 200 when it exists.
  const wide = { start: `${now.year - 5}-01-01`, end: `${now.year + 4}-12-31` };
  const first = await sendRaw({
    port: options.servicePort,
    method: 'GET',
    path: `${API}/events?start_date=${wide.start}&end_date=${wide.end}&per_page=10`,
    headers: { host: BENCH_HOST },
  });
  if (first.status !== 200) throw new Error(`wide window answered ${first.status}: ${first.body.toString().slice(0, 300)}`);
  const pages = Number((JSON.parse(first.body.toString()) as { total_pages: number }).total_pages);

  // The most frequent word (4+ letters) of upcoming titles.
  const titles = await rows(
    db,
    `SELECT tt.title FROM events e JOIN event_translations tt ON tt.event_id = e.id AND tt.language = ?
     WHERE e.status = 'publish' AND e.start_at >= ? ORDER BY e.start_at LIMIT 500`,
    [language, Math.floor(now.toSeconds())],
  );
  const frequency = new Map<string, number>();
  for (const { title } of titles) {
    for (const word of String(title).toLowerCase().split(/[^\p{L}]+/u)) {
      if (word.length >= 4) frequency.set(word, (frequency.get(word) ?? 0) + 1);
    }
  }
  const searchWord = [...frequency].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
  if (!searchWord) throw new Error('no upcoming published event has a title word to search for');

  const [event] = await rows(
    db,
    `SELECT e.id, e.venue_id, tt.slug FROM events e
     JOIN event_translations tt ON tt.event_id = e.id AND tt.language = ?
     JOIN venues v ON v.id = e.venue_id AND v.status = 'publish'
     WHERE e.status = 'publish' AND e.start_at >= ? AND e.password_hash IS NULL
     AND EXISTS (SELECT 1 FROM event_organizers eo WHERE eo.event_id = e.id)
     ORDER BY e.start_at, e.id LIMIT 1`,
    [language, Math.floor(now.toSeconds())],
  );
  if (!event) throw new Error('no upcoming public event with a venue and organizers to read');
  const organizers = await rows(
    db,
    `SELECT eo.organizer_id FROM event_organizers eo JOIN organizers o ON o.id = eo.organizer_id AND o.status = 'publish'
     WHERE eo.event_id = ? ORDER BY eo.position`,
    [event.id],
  );

  return {
    events: Number(events),
    month: { start: month.toFormat('yyyy-MM-dd'), end: month.endOf('month').toFormat('yyyy-MM-dd') },
    category,
    wide: { ...wide, page: Math.max(1, Math.min(200, pages)), pages },
    searchWord,
    event: { id: Number(event.id), slug: String(event.slug) },
    create: {
      categories: categories.map((c) => Number(c.id)),
      tags: tags.map((t) => Number(t.id)),
      venue: event.venue_id === null ? null : Number(event.venue_id),
      organizers: organizers.map((o) => Number(o.organizer_id)),
    },
  };
}

/** The request sets (a)–(g) of the benchmark. */
export function requestSets(data: BenchData, runToken: string): RequestSet[] {
  const createBody = (n: number, tag: string) => {
    // Far in the future (outside every measured window), on a day that varies.
    const day = DateTime.fromObject({ year: 2090, month: 1, day: 1 }, { zone: 'UTC' }).plus({ days: n % 3650 });
    return JSON.stringify({
      title: `Bench ${runToken} ${tag} ${n}`,
      description: '<p>Created by npm run bench; removed when the run ends.</p>',
      excerpt: 'Benchmark event',
      start_date: `${day.toFormat('yyyy-MM-dd')} 19:30:00`,
      end_date: `${day.toFormat('yyyy-MM-dd')} 22:00:00`,
      timezone: 'Europe/Amsterdam',
      cost: ['€10', '€25'],
      website: 'https://example.org/bench',
      categories: data.create.categories,
      tags: data.create.tags,
      ...(data.create.venue !== null ? { venue: data.create.venue } : {}),
      organizer: data.create.organizers,
    });
  };
  const pageNote = data.wide.page === 200 ? 'page 200' : `page ${data.wide.page} (last)`;
  return [
    { key: 'list', label: 'default list', method: 'GET', path: `${API}/events` },
    {
      key: 'month',
      label: `month ${data.month.start.slice(0, 7)} + category`,
      method: 'GET',
      path: `${API}/events?start_date=${data.month.start}&end_date=${data.month.end}&categories=${encodeURIComponent(data.category.slug)}`,
    },
    {
      key: 'page200',
      label: `${pageNote}, 10-year window`,
      method: 'GET',
      path: `${API}/events?start_date=${data.wide.start}&end_date=${data.wide.end}&per_page=10&page=${data.wide.page}`,
    },
    {
      key: 'search',
      label: `search "${data.searchWord}"`,
      method: 'GET',
      path: `${API}/events?search=${encodeURIComponent(data.searchWord)}`,
    },
    { key: 'id', label: 'event by ID', method: 'GET', path: `${API}/events/${data.event.id}` },
    {
      key: 'slug',
      label: 'event by slug',
      method: 'GET',
      path: `${API}/events/by-slug/${encodeURIComponent(data.event.slug)}`,
    },
    { key: 'create', label: 'create event', method: 'POST', path: `${API}/events`, body: createBody, auth: true },
  ];
}

/**
 * Removes the events the bench created (author BENCH_AUTHOR_ID) and takes
 * them out of the terms' published counts again, then bumps the data version
 * so no instance keeps a stale total. Answers how many it removed.
 */
export async function cleanupCreated(db: Connection): Promise<number> {
  const [{ n }] = await rows(db, 'SELECT COUNT(*) AS n FROM events WHERE author_id = ?', [BENCH_AUTHOR_ID]);
  if (Number(n) === 0) return 0;
  await db.query('START TRANSACTION');
  try {
    await db.query(
      `UPDATE terms t JOIN (
         SELECT et.term_id, COUNT(*) AS n FROM event_terms et JOIN events e ON e.id = et.event_id
         WHERE e.author_id = ? AND e.status = 'publish' GROUP BY et.term_id
       ) d ON d.term_id = t.id SET t.published_count = t.published_count - d.n`,
      [BENCH_AUTHOR_ID],
    );
    // Translations and links go with the event (ON DELETE CASCADE).
    await db.query('DELETE FROM events WHERE author_id = ?', [BENCH_AUTHOR_ID]);
    await db.query('UPDATE data_version SET version = version + 1 WHERE id = 1');
    await db.query('COMMIT');
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
  return Number(n);
}
