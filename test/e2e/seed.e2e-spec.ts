import { eventRows } from '../../scripts/seed/generators/events';
import { makePlan, SeedPlan } from '../../scripts/seed/plan';
import { emptyTables, nonEmptyTables, seedDatabase, SeedResult } from '../../scripts/seed/seed-database';
import { resolveEventTimes } from '../../src/events/event-times';
import { API, createTestApp, TEST_SECRET, TestApp } from './helpers/test-app';

/*
 * The data generator of `npm run seed` (scripts/seed), run in-process on the
 * test database of each engine with a tiny plan: the rows it writes must be
 * what the service itself would have stored.
 */

const SIZE = { events: 200, venues: 20, organizers: 20, categories: 5, tags: 10 };

/**
 * The slug rule written out by hand rather than the service's toSlug, so a bug there
 * shows here: accents and apostrophes dropped, lower case, every run of other characters
 * one dash.
 */
function slugByHand(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replaceAll("'", '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

describe('seed data generator', () => {
  let t: TestApp;
  let plan: SeedPlan;
  let result: SeedResult;
  const query = async <T = Record<string, unknown>>(sql: string): Promise<T[]> =>
    t.dataSource.query(sql);
  const count = async (sql: string): Promise<number> =>
    Number(Object.values((await query(sql))[0])[0]);

  beforeAll(async () => {
    t = await createTestApp();
    // "Today" is the real one, so the default list window holds seeded events.
    plan = makePlan({ ...SIZE, seed: 7, jwtSecret: TEST_SECRET });
    result = await seedDatabase(t.dataSource, plan, { batchEvents: 64, rowsPerStatement: 50 });
  });
  afterAll(() => t?.close());

  it('writes the planned number of rows to every table', async () => {
    const expected: Record<string, number> = {
      terms: 15,
      term_translations: 30,
      venues: 20,
      venue_translations: 40,
      organizers: 20,
      organizer_translations: 40,
      events: 200,
      event_translations: 400,
      event_terms: 200 * 5,
    };
    for (const [table, n] of Object.entries(expected)) {
      expect([table, await count(`SELECT COUNT(*) FROM ${table}`)]).toEqual([table, n]);
      expect([table, result.counts[table]]).toEqual([table, n]);
    }
    const links = await count('SELECT COUNT(*) FROM event_organizers');
    expect(result.counts.event_organizers).toBe(links);
    expect(links).toBeGreaterThan(200);
    expect(links).toBeLessThan(400);
    expect(result.rows).toBe(Object.values(result.counts).reduce((a, b) => a + b, 0));
  });

  it('gives every seeded record its place in the changes feed', async () => {
    const kinds = await query<{ kind: string; n: number | string }>(
      'SELECT kind, COUNT(*) AS n FROM changes WHERE deleted = 0 GROUP BY kind ORDER BY kind',
    );
    expect(kinds.map((row) => [row.kind, Number(row.n)])).toEqual([
      ['category', 5],
      ['event', 200],
      ['organizer', 20],
      ['tag', 10],
      ['venue', 20],
    ]);
    const page = await t
      .http()
      .get(`${API}/changes`)
      .query({ kinds: 'venues', per_page: 1000 })
      .expect(200);
    const published = await query<{ id: number | string }>(
      "SELECT id FROM venues WHERE status = 'publish' ORDER BY id",
    );
    expect(page.body.changes.map((c: { id: number }) => c.id)).toEqual(
      published.map((row) => Number(row.id)),
    );
    expect(published.length).toBeGreaterThan(10);
  });

  it('gives every record a Dutch and an English translation with its own texts', async () => {
    for (const [table, owner, perLanguage] of [
      ['event_translations', 'event_id', 200],
      ['venue_translations', 'venue_id', 20],
      ['organizer_translations', 'organizer_id', 20],
      ['term_translations', 'term_id', 15],
    ] as const) {
      const rows = await query<{ language: string; n: number | string; owners: number | string }>(
        `SELECT language, COUNT(*) AS n, COUNT(DISTINCT ${owner}) AS owners FROM ${table} GROUP BY language ORDER BY language`,
      );
      expect(rows.map((r) => [r.language, Number(r.n), Number(r.owners)])).toEqual([
        ['en', perLanguage, perLanguage],
        ['nl', perLanguage, perLanguage],
      ]);
    }
    const pair = await query<{ language: string; title: string }>(
      'SELECT language, title FROM event_translations WHERE event_id = 1 ORDER BY language',
    );
    expect(pair[0].title).not.toBe(pair[1].title);
  });

  it('makes slugs unique per kind and language, as the service derives them', async () => {
    for (const [table, scope] of [
      ['event_translations', 'language'],
      ['venue_translations', 'language'],
      ['organizer_translations', 'language'],
      ['term_translations', 'taxonomy, language'],
    ]) {
      const duplicates = await query(
        `SELECT ${scope}, slug FROM ${table} GROUP BY ${scope}, slug HAVING COUNT(*) > 1`,
      );
      expect([table, duplicates]).toEqual([table, []]);
    }
    const events = await query<{ event_id: number; title: string; slug: string }>(
      'SELECT event_id, title, slug FROM event_translations',
    );
    for (const e of events) expect(e.slug).toBe(`${slugByHand(e.title)}-${e.event_id}`);
    const names = await query<{ name: string; name_key: string; slug: string }>(
      'SELECT name, name_key, slug FROM term_translations',
    );
    for (const term of names) {
      expect(term.name_key).toBe(term.name.toLowerCase());
      expect(term.slug).toBe(slugByHand(term.name));
    }
  });

  it('links every event to an existing venue, two categories, three tags and one or two organizers', async () => {
    expect(
      await count(
        'SELECT COUNT(*) FROM events e LEFT JOIN venues v ON v.id = e.venue_id WHERE v.id IS NULL',
      ),
    ).toBe(0);
    const perEvent = await query<{ id: number; categories: number; tags: number }>(
      `SELECT e.id,
         SUM(CASE WHEN t.taxonomy = 'tribe_events_cat' THEN 1 ELSE 0 END) AS categories,
         SUM(CASE WHEN t.taxonomy = 'post_tag' THEN 1 ELSE 0 END) AS tags
       FROM events e JOIN event_terms et ON et.event_id = e.id JOIN terms t ON t.id = et.term_id
       GROUP BY e.id`,
    );
    expect(perEvent).toHaveLength(200);
    for (const row of perEvent) expect([Number(row.categories), Number(row.tags)]).toEqual([2, 3]);
    expect(
      await count(
        'SELECT COUNT(*) FROM event_organizers eo LEFT JOIN organizers o ON o.id = eo.organizer_id WHERE o.id IS NULL',
      ),
    ).toBe(0);
    const organizers = await query<{ n: number | string; positions: number | string }>(
      'SELECT COUNT(*) AS n, MAX(position) AS positions FROM event_organizers GROUP BY event_id',
    );
    expect(organizers).toHaveLength(200);
    for (const row of organizers) {
      expect([1, 2]).toContain(Number(row.n));
      expect(Number(row.positions)).toBe(Number(row.n) - 1);
    }
    expect(
      await count(
        'SELECT COUNT(*) FROM events c LEFT JOIN events p ON p.id = c.parent_id WHERE c.parent_id IS NOT NULL AND p.id IS NULL',
      ),
    ).toBe(0);
  });

  it('stores times the service would store for the wall-clock times and zone', async () => {
    const events = await query<Record<string, string | number>>(
      'SELECT timezone, start_local, end_local, start_at, end_at, all_day FROM events',
    );
    const zones = new Set<string>();
    for (const e of events) {
      zones.add(String(e.timezone));
      const allDay = Number(e.all_day) === 1;
      const times = resolveEventTimes(
        {
          timezone: String(e.timezone),
          start_date: String(e.start_local),
          end_date: String(e.end_local),
          all_day: allDay,
        },
        undefined,
        'UTC',
      );
      expect({
        start: [times.startLocal, times.startAt],
        end: [times.endLocal, times.endAt],
      }).toEqual({
        start: [e.start_local, Number(e.start_at)],
        end: [e.end_local, Number(e.end_at)],
      });
      const duration = Number(e.end_at) - Number(e.start_at);
      if (allDay) {
        expect(String(e.start_local)).toMatch(/ 00:00:00$/);
        expect(String(e.end_local)).toMatch(/ 23:59:59$/);
      } else {
        expect(String(e.start_local)).toMatch(/ \d\d:(00|30):00$/);
        expect(duration).toBeGreaterThanOrEqual(3600);
        expect(duration).toBeLessThanOrEqual(4 * 3600);
      }
    }
    expect(zones.has('Europe/Amsterdam')).toBe(true);
    const now = Date.now() / 1000;
    const starts = events.map((e) => Number(e.start_at));
    expect(Math.min(...starts)).toBeLessThan(now - 4 * 365 * 86400);
    expect(Math.max(...starts)).toBeGreaterThan(now + 4 * 365 * 86400);
  });

  it('keeps the published counts of the terms exact', async () => {
    const rows = await query<{ id: number; stored: number | string; counted: number | string }>(
      `SELECT t.id, t.published_count AS stored,
         (SELECT COUNT(*) FROM event_terms et JOIN events e ON e.id = et.event_id
          WHERE et.term_id = t.id AND e.status = 'publish') AS counted
       FROM terms t`,
    );
    expect(rows).toHaveLength(15);
    for (const row of rows) expect(Number(row.stored)).toBe(Number(row.counted));
    expect(await count("SELECT COUNT(*) FROM events WHERE status = 'publish'")).toBeGreaterThan(
      160,
    );
  });

  it('is deterministic: the same seed gives the same rows, another seed others', async () => {
    const stored = await query<Record<string, unknown>>(
      'SELECT id, status, start_local, timezone, venue_id FROM events WHERE id <= 5 ORDER BY id',
    );
    const again = eventRows(makePlan({ ...SIZE, seed: 7, jwtSecret: TEST_SECRET }), 1, 5);
    const twice = eventRows(makePlan({ ...SIZE, seed: 7, jwtSecret: TEST_SECRET }), 1, 5);
    expect(again).toEqual(twice);
    const pick = (row: unknown[]) => [row[0], row[2], row[8], row[7], row[23]];
    expect(again.events.map(pick)).toEqual(
      stored.map((r) => [Number(r.id), r.status, r.start_local, r.timezone, Number(r.venue_id)]),
    );
    const titles = await query<{ title: string }>(
      'SELECT title FROM event_translations WHERE event_id <= 5 ORDER BY id',
    );
    expect(again.translations.map((row) => row[4])).toEqual(titles.map((r) => r.title));
    const other = eventRows(makePlan({ ...SIZE, seed: 8, jwtSecret: TEST_SECRET }), 1, 5);
    expect(other.translations.map((row) => row[4])).not.toEqual(titles.map((r) => r.title));
  });

  it('serves the seeded data through the API in both languages, with working passwords', async () => {
    const nl = await t.http().get(`${API}/events?per_page=5`).expect(200);
    expect(nl.body.total).toBeGreaterThan(0);
    expect(nl.body.events[0].language).toBe('nl');
    expect(nl.body.events[0].languages).toEqual(['nl', 'en']);
    const en = await t.http().get(`${API}/events/${nl.body.events[0].id}?language=en`).expect(200);
    expect(en.body.language).toBe('en');
    await t.http().get(`${API}/events/by-slug/${en.body.slug}?language=en`).expect(200);

    const [locked] = await query<{ id: number }>(
      "SELECT id FROM events WHERE password_hash IS NOT NULL AND status = 'publish' ORDER BY id",
    );
    // Seed 7 protects four published events among the 200.
    expect(locked).toBeDefined();
    await t.http().get(`${API}/events/${locked.id}`).expect(403);
    const open = await t
      .http()
      .get(`${API}/events/${locked.id}?password=${plan.password}`)
      .expect(200);
    expect(open.body.password_protected).toBe(true);
    const venues = await t.http().get(`${API}/venues?per_page=3&language=en`).expect(200);
    expect(venues.body.venues[0].language).toBe('en');
    const categories = await t.http().get(`${API}/categories`).expect(200);
    expect(categories.body.categories.length).toBeGreaterThan(0);
  });

  it('empties its tables on request and reports what holds data', async () => {
    expect(await nonEmptyTables(t.dataSource)).toHaveLength(10);
    await emptyTables(t.dataSource);
    expect(await nonEmptyTables(t.dataSource)).toEqual([]);
    // IDs start again at 1 and a second load succeeds.
    await seedDatabase(
      t.dataSource,
      makePlan({ events: 3, venues: 1, organizers: 1, categories: 2, tags: 3 }),
    );
    expect(await count('SELECT MIN(id) FROM events')).toBe(1);
    expect(await count('SELECT COUNT(*) FROM event_translations')).toBe(6);
  });
});
