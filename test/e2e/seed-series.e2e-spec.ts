import { seriesNow, seriesRows } from '../../scripts/seed/generators/series';
import { makePlan, SeedPlan } from '../../scripts/seed/plan';
import { seedDatabase } from '../../scripts/seed/seed-database';
import { RecurrenceService } from '../../src/events/recurrence/recurrence.service';
import { API, createTestApp, TEST_SECRET, TestApp } from './helpers/test-app';

/*
 * Recurring series of `npm run seed -- --series N` (scripts/seed/generators/series.ts):
 * the occurrences it writes must be the ones the service writes for the same
 * series. Two checks through the API, on each engine: a series edit that
 * changes nothing re-materializes every occurrence (IDs kept where the date
 * fits), so the records before and after must be equal; and a copy of each
 * series created through the API must get the same dates and times.
 * Seed 2 gives, among its published series, daily, weekly and monthly rules,
 * COUNT, UNTIL, an EXDATE line, Europe/Amsterdam and an all-day series in
 * America/New_York.
 */

const SIZE = {
  events: 20,
  series: 16,
  venues: 8,
  organizers: 8,
  categories: 4,
  tags: 6,
  horizonMonths: 3,
  seed: 2,
  today: '2026-11-25',
};
/** Wider than every seeded date. */
const WINDOW = 'start_date=2020-01-01&end_date=2035-12-31&per_page=1000';

type Record_ = Record<string, unknown>;

describe('seeded recurring series', () => {
  let t: TestApp;
  let plan: SeedPlan;
  const query = async <T = Record_>(sql: string): Promise<T[]> => t.dataSource.query(sql);
  const admin = () => t.auth.administrator;

  /** Every occurrence of a series as listed (`post_parent`), all pages, in `language`. */
  async function occurrences(seriesId: number, language = 'nl'): Promise<Record_[]> {
    const out: Record_[] = [];
    for (let page = 1; ; page++) {
      const res = await t
        .http()
        .get(`${API}/events?post_parent=${seriesId}&${WINDOW}&page=${page}&language=${language}`)
        .set('Authorization', admin())
        .expect(200);
      out.push(...(res.body.events as Record_[]));
      if (page >= Number(res.body.total_pages)) return out;
    }
  }

  /** What a rewrite may change: the modification times. */
  const unmodified = ({ modified: _m, modified_utc: _u, ...rest }: Record_) => rest;
  const times = (e: Record_) =>
    [e.start_date, e.end_date, e.utc_start_date, e.utc_end_date, e.all_day, e.timezone].join(' ');

  /** The published series without a password (anonymous lists show them whole). */
  async function publishedSeries(): Promise<
    Array<{ id: number; recurrence: string; timezone: string; all_day: number | boolean }>
  > {
    return query(
      `SELECT id, recurrence, timezone, all_day FROM events
       WHERE recurrence IS NOT NULL AND status = 'publish' AND password_hash IS NULL ORDER BY id`,
    );
  }

  beforeAll(async () => {
    t = await createTestApp({
      RECURRENCE_HORIZON_MONTHS: String(SIZE.horizonMonths),
      // A series' occurrences in one page.
      MAX_PER_PAGE: '1000',
    });
    // One port, so the records' URLs are the same in every answer.
    await t.app.listen(0, '127.0.0.1');
    plan = makePlan({ ...SIZE, jwtSecret: TEST_SECRET });
    // The writes' clock: the instant the seeder computed the horizon from.
    t.app.get(RecurrenceService).now = () => seriesNow(plan);
    await seedDatabase(t.dataSource, plan, { batchEvents: 100, rowsPerStatement: 50 });
  });
  afterAll(() => t?.close());

  it('writes each series with its occurrences right after it, as the service links them', async () => {
    const series = await query<Record_>(
      'SELECT id, series_id, occurrence_date, materialized_until, recurrence, parent_id FROM events WHERE recurrence IS NOT NULL ORDER BY id',
    );
    expect(series).toHaveLength(16);
    for (const row of series) {
      expect(Number(row.series_id)).toBe(Number(row.id));
      expect([row.occurrence_date, row.parent_id]).toEqual([null, null]);
      expect(String(row.materialized_until)).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(JSON.parse(String(row.recurrence))[0]).toMatch(
        /^RRULE:FREQ=(DAILY|WEEKLY|MONTHLY)(;|$)/,
      );
    }
    expect(Number(series[0].id)).toBe(21);
    const bad = await query(
      `SELECT o.id FROM events o LEFT JOIN events s ON s.id = o.series_id
       WHERE o.occurrence_date IS NOT NULL AND (s.recurrence IS NULL OR o.parent_id <> o.series_id
         OR o.occurrence_date <> SUBSTR(o.start_local, 1, 10) OR o.start_local <= s.start_local
         OR o.occurrence_date > s.materialized_until OR o.recurrence IS NOT NULL)`,
    );
    expect(bad).toEqual([]);
    const [{ n }] = await query<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM events WHERE occurrence_date IS NOT NULL',
    );
    const made = seriesRows(plan, 1, 16, 21);
    expect(Number(n)).toBe(made.events.length - 16);
    expect(made).toEqual(seriesRows(plan, 1, 16, 21));
    const [{ counted }] = await query<{ counted: number | string }>(
      `SELECT COUNT(*) AS counted FROM terms t WHERE t.published_count <> (SELECT COUNT(*) FROM event_terms et
         JOIN events e ON e.id = et.event_id WHERE et.term_id = t.id AND e.status = 'publish')`,
    );
    expect(Number(counted)).toBe(0);
  });

  it('an edit through the API that changes nothing rewrites exactly the seeded occurrences', async () => {
    const series = await publishedSeries();
    expect(series.length).toBeGreaterThanOrEqual(10);
    const categories = async () =>
      (await t.http().get(`${API}/categories?per_page=50`).expect(200)).body.categories.map(
        (c: Record_) => [c.id, c.count],
      );
    const countsBefore = await categories();
    for (const { id, recurrence } of series) {
      const before = [...(await occurrences(id)), ...(await occurrences(id, 'en'))];
      expect(before.length).toBeGreaterThan(0);
      await t
        .http()
        .patch(`${API}/events/${id}`)
        .set('Authorization', admin())
        .send({ recurrence: JSON.parse(recurrence) })
        .expect(200);
      const after = [...(await occurrences(id)), ...(await occurrences(id, 'en'))];
      expect([id, after.map(unmodified)]).toEqual([id, before.map(unmodified)]);
    }
    expect(await categories()).toEqual(countsBefore);
  });

  it('a copy created through the API gets the same dates and times', async () => {
    const series = await publishedSeries();
    const zones = new Set(series.map((s) => s.timezone));
    expect(zones).toEqual(new Set(['Europe/Amsterdam', 'Europe/Brussels', 'America/New_York']));
    expect(series.some((s) => Number(s.all_day) === 1)).toBe(true);
    expect(series.some((s) => s.recurrence.includes('EXDATE'))).toBe(true);
    for (const { id, recurrence } of series) {
      const seeded = (
        await t.http().get(`${API}/events/${id}`).set('Authorization', admin()).expect(200)
      ).body;
      const copy = await t
        .http()
        .post(`${API}/events`)
        .set('Authorization', admin())
        .send({
          title: `Kopie ${id}`,
          start_date: seeded.start_date,
          end_date: seeded.end_date,
          all_day: seeded.all_day,
          timezone: seeded.timezone,
          recurrence: JSON.parse(recurrence),
        })
        .expect(201);
      const expected = (await occurrences(id)).map(times);
      expect([id, (await occurrences(copy.body.id)).map(times)]).toEqual([id, expected]);
    }
  });
});
