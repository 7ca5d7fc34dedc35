import { ImportScheduler } from '../../src/imports/import-scheduler.service';
import { STALE_RUN_MS } from '../../src/imports/import-store';
import { FeedServer, feedOf } from './helpers/feed-server';
import { runReport, wireDate } from './helpers/imports';
import { METRICS_TOKEN, scrape, valueOf } from './helpers/metrics';
import { API, createTestApp, TestApp } from './helpers/test-app';
import { eventually } from './helpers/webhook-receiver';

/*
 * URL imports against a real feed server on 127.0.0.1 (internal targets and
 * plain http allowed, as for the webhook tests): the first run starts at
 * once, refreshes send the feed's ETag back and take a 304 as not_modified,
 * failures are reports, each due run is claimed once (a stale claim is taken
 * over), and the runs are counted in the metrics. The scheduler's clock is
 * moved on to make refreshes due.
 */

const HOUR_MS = 3_600_000;

describe('imports: feeds on a schedule', () => {
  let t: TestApp;
  let feeds: FeedServer;
  let scheduler: ImportScheduler;

  beforeAll(async () => {
    feeds = await new FeedServer().start();
    t = await createTestApp({
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      METRICS_TOKEN,
      // No poll during the tests: runs start at creation, or when a test calls runDue().
      IMPORTS_POLL_MS: '3600000',
    });
    scheduler = t.app.get(ImportScheduler);
  });
  afterAll(async () => {
    await t?.close();
    await feeds?.stop();
  });
  beforeEach(async () => {
    scheduler.now = () => Date.now();
    await t.reset();
  });

  const admin = () => ({ Authorization: t.auth.administrator });
  const read = async (id: number) =>
    (await t.http().get(`${API}/imports/${id}`).set(admin()).expect(200)).body;
  /** The import once it has `count` runs. */
  const withRuns = (id: number, count: number) =>
    eventually(
      () => read(id),
      (body) => body.runs.length >= count,
    );
  /** Makes refreshes due: the scheduler's clock `ms` ahead. */
  const later = (ms: number) => (scheduler.now = () => Date.now() + ms);

  const run = (fields: Record<string, unknown>) =>
    runReport(
      'schedule',
      {
        outcome: 'fetched',
        bytes: expect.any(Number),
        http_status: null,
        error: null,
        detail: null,
      },
      fields,
    );

  it('runs a new URL import at once, then refreshes it with If-None-Match and takes 304 as not_modified', async () => {
    // Calendars without VEVENTs: the schedule and its reports, not what a run writes (last test).
    const body = feedOf('feed', 0);
    feeds.serve('/agenda.ics', { body, etag: '"v1"' });
    const before = await scrape(t);
    const created = await t
      .http()
      .post(`${API}/imports`)
      .set(admin())
      .send({ url: feeds.url('/agenda.ics'), source: 'feed', refresh: '1h' })
      .expect(202);
    expect(created.body.runs).toEqual([]);
    const first = await withRuns(created.body.id, 1);
    expect(first.runs).toEqual([
      run({
        trigger: 'created',
        fetch: expect.objectContaining({ outcome: 'fetched', bytes: Buffer.byteLength(body) }),
      }),
    ]);
    expect(first).toMatchObject({
      last_outcome: 'imported',
      last_run_utc: wireDate,
      last_success_utc: wireDate,
    });
    expect(feeds.on('/agenda.ics').map((r) => r.headers['if-none-match'])).toEqual([undefined]);

    // Not due yet: nothing is fetched.
    expect(await scheduler.runDue()).toBe(0);
    later(HOUR_MS + 1000);
    expect(await scheduler.runDue()).toBe(1);
    const second = await read(created.body.id);
    expect(second.runs).toEqual([
      run({
        outcome: 'not_modified',
        fetch: {
          outcome: 'not_modified',
          bytes: null,
          http_status: null,
          error: null,
          detail: null,
        },
      }),
      first.runs[0],
    ]);
    expect(second.last_outcome).toBe('not_modified');
    expect(feeds.on('/agenda.ics').map((r) => [r.headers['if-none-match'], r.status])).toEqual([
      [undefined, 200],
      ['"v1"', 304],
    ]);

    // The feed changes: fetched and imported again, the new ETag kept for the next refresh.
    feeds.serve('/agenda.ics', { body: `${body}\r\n`, etag: '"v2"' });
    later(2 * HOUR_MS + 2000);
    expect(await scheduler.runDue()).toBe(1);
    later(3 * HOUR_MS + 3000);
    expect(await scheduler.runDue()).toBe(1);
    expect(feeds.on('/agenda.ics').map((r) => [r.headers['if-none-match'], r.status])).toEqual([
      [undefined, 200],
      ['"v1"', 304],
      ['"v1"', 200],
      ['"v2"', 304],
    ]);
    const runs = (await read(created.body.id)).runs.map((r: { outcome: string }) => r.outcome);
    expect(runs).toEqual(['not_modified', 'imported', 'not_modified', 'imported']);

    const after = await scrape(t);
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('calendar_import_runs_total', { outcome: 'imported' })).toBe(2);
    expect(delta('calendar_import_runs_total', { outcome: 'not_modified' })).toBe(2);
    expect(delta('calendar_import_run_duration_seconds_count', { outcome: 'imported' })).toBe(2);
    expect(valueOf(after, 'calendar_import_last_success_timestamp_seconds')).toBeGreaterThan(
      Date.now() / 1000 - 60,
    );
    // The first run went through the schedule's job (runSoon); the others were called here.
    expect(delta('calendar_job_runs_total', { job: 'import_schedule', outcome: 'ok' })).toBe(1);
  });

  it('reports a feed that cannot be fetched, and keeps refreshing it', async () => {
    feeds.serve('/broken.ics', { body: 'gone', status: 500 });
    const created = await t
      .http()
      .post(`${API}/imports`)
      .set(admin())
      .send({ url: feeds.url('/broken.ics'), source: 'broken' })
      .expect(202);
    const first = await withRuns(created.body.id, 1);
    expect(first.runs).toEqual([
      run({
        trigger: 'created',
        outcome: 'fetch_failed',
        fetch: {
          outcome: 'failed',
          bytes: null,
          http_status: 500,
          error: 'http_status',
          detail: 'the server answered 500',
        },
      }),
    ]);
    expect([first.last_outcome, first.last_success_utc]).toEqual(['fetch_failed', null]);
    const missing = await t
      .http()
      .post(`${API}/imports`)
      .set(admin())
      .send({ url: feeds.url('/nothing-here.ics'), source: 'missing' })
      .expect(202);
    expect((await withRuns(missing.body.id, 1)).runs[0].fetch).toEqual({
      outcome: 'failed',
      bytes: null,
      http_status: 404,
      error: 'http_status',
      detail: 'the server answered 404',
    });
    later(HOUR_MS + 1000);
    expect(await scheduler.runDue()).toBe(2);
    expect(feeds.on('/broken.ics')).toHaveLength(2);
  });

  it('claims a due run once, leaves one another instance is running, and takes over a stale claim', async () => {
    feeds.serve('/claims.ics', { body: feedOf('claims', 1), etag: '"c"' });
    const created = await t
      .http()
      .post(`${API}/imports`)
      .set(admin())
      .send({ url: feeds.url('/claims.ics'), source: 'claims' })
      .expect(202);
    await withRuns(created.body.id, 1);
    const id = created.body.id as number;
    const now = Date.now();
    const set = (nextRunMs: number, runningSinceMs: number | null) =>
      t.dataSource.query('UPDATE imports SET next_run_ms = ?, running_since_ms = ? WHERE id = ?', [
        nextRunMs,
        runningSinceMs,
        id,
      ]);
    // Due, but another instance claimed it a minute ago and is still running it.
    await set(now - 1000, now - 60_000);
    expect(await scheduler.runDue()).toBe(0);
    // That instance died: its claim is older than STALE_RUN_MS.
    await set(now - 1000, now - STALE_RUN_MS - 1000);
    expect(await scheduler.runDue()).toBe(1);
    const [row] = await t.dataSource.query(
      'SELECT next_run_ms, running_since_ms FROM imports WHERE id = ?',
      [id],
    );
    // Released after the run; the next run one refresh (1h) after the claim.
    expect(row.running_since_ms).toBeNull();
    expect(Number(row.next_run_ms)).toBeGreaterThanOrEqual(now + HOUR_MS);
    expect(Number(row.next_run_ms)).toBeLessThan(Date.now() + HOUR_MS + 1000);
    // Claimed once: running it again at once finds nothing due.
    expect(await scheduler.runDue()).toBe(0);
    expect(feeds.on('/claims.ics')).toHaveLength(2);
    // An upload is never scheduled.
    const upload = await t
      .http()
      .post(`${API}/imports?source=once`)
      .set(admin())
      .set('Content-Type', 'text/calendar')
      .send(feedOf('once', 1))
      .expect(201);
    later(365 * 24 * HOUR_MS);
    await set(Date.now() + HOUR_MS, null);
    expect(await scheduler.runDue()).toBe(1);
    expect((await read(upload.body.id)).runs).toHaveLength(1);
  });

  // Needs the real ImportWriter (the iwriter branch): the stand-in writes nothing.
  it('counts what the runs wrote, in the reports and the metrics (with the import writer)', async () => {
    feeds.serve('/counted.ics', { body: feedOf('counted', 2), etag: '"1"' });
    const before = await scrape(t);
    const created = await t
      .http()
      .post(`${API}/imports`)
      .set(admin())
      .send({ url: feeds.url('/counted.ics'), source: 'counted' })
      .expect(202);
    await withRuns(created.body.id, 1);
    feeds.serve('/counted.ics', { body: feedOf('counted', 3), etag: '"2"' });
    later(HOUR_MS + 1000);
    await scheduler.runDue();
    const { runs } = await read(created.body.id);
    expect(
      runs.map((r: Record<string, number>) => [r.created, r.updated, r.unchanged, r.trashed]),
    ).toEqual([
      [1, 0, 2, 0],
      [2, 0, 0, 0],
    ]);
    const after = await scrape(t);
    const delta = (result: string) =>
      valueOf(after, 'calendar_import_items_total', { result }) -
      valueOf(before, 'calendar_import_items_total', { result });
    expect([delta('created'), delta('unchanged'), delta('updated'), delta('trashed')]).toEqual([
      3, 2, 0, 0,
    ]);
  });
});
