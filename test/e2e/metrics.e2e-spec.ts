import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API, createTestApp, mysqlTestUrl, TestApp } from './helpers/test-app';
import { METRICS_TOKEN, parseExposition, scrape, valueOf } from './helpers/metrics';
import { eventually, useWebhookApp } from './helpers/webhook-receiver';
import { TcpProxy } from './helpers/tcp-proxy';

/*
 * GET /metrics (docs/operations.md): closed without METRICS_TOKEN, and the
 * series a request, a webhook delivery and a failing database move.
 */

const REQUESTS = 'calendar_http_request_duration_seconds_count';

describe('metrics', () => {
  const ctx = useWebhookApp({
    METRICS_TOKEN,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1h',
    WEBHOOK_TIMEOUT_MS: '5000',
  });

  it('answers only the bearer METRICS_TOKEN', async () => {
    const none = await ctx.t.http().get('/metrics').expect(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    await ctx.t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}x`).expect(401);
    await ctx.t.http().get('/metrics').set('Authorization', METRICS_TOKEN).expect(401);
    // The scheme is case-insensitive (RFC 9110 §11.1).
    await ctx.t.http().get('/metrics').set('Authorization', `bearer ${METRICS_TOKEN}`).expect(200);
    const ok = await ctx.t
      .http()
      .get('/metrics')
      .set('Authorization', `Bearer ${METRICS_TOKEN}`)
      .expect(200);
    expect(ok.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    // prom-client's default metrics: event-loop delay and GC.
    const metrics = parseExposition(ok.text);
    expect(metrics.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect([...metrics.keys()].some((k) => k.startsWith('nodejs_gc_duration_seconds'))).toBe(true);
  });

  it('counts a request under its route template, method and status, never its URL', async () => {
    const before = await scrape(ctx.t);
    await ctx.t.http().get(`${API}/events/987654`).expect(404);
    await ctx.t.http().get(`${API}/events/987655`).expect(404);
    await ctx.t.http().get(`${API}/categories?hide_empty=false`).expect(200);
    await ctx.t.http().get(`${API}/no-such-thing`).expect(404);
    const after = await scrape(ctx.t);
    const moved = (labels: Record<string, string>) =>
      valueOf(after, REQUESTS, labels) - valueOf(before, REQUESTS, labels);
    expect(moved({ method: 'GET', route: `${API}/events/:id`, status: '404' })).toBe(2);
    expect(moved({ method: 'GET', route: `${API}/categories`, status: '200' })).toBe(1);
    // The API's catch-all route answers unknown paths (404 rest_no_route).
    expect(moved({ method: 'GET', route: `${API}/{*path}`, status: '404' })).toBe(1);
    expect([...after.keys()].filter((k) => /987654|no-such-thing/.test(k))).toEqual([]);
    expect(
      valueOf(after, 'calendar_db_query_duration_seconds_count', { operation: 'select' }),
    ).toBeGreaterThan(
      valueOf(before, 'calendar_db_query_duration_seconds_count', { operation: 'select' }),
    );
  });

  it('counts a request refused before routing as unmatched, a 404 outside the API too', async () => {
    const before = await scrape(ctx.t);
    await ctx.t
      .http()
      .post(`${API}/events`)
      .set('Authorization', ctx.t.auth.author)
      .set('Content-Type', 'text/plain')
      .send('x')
      .expect(415);
    await ctx.t.http().get('/no-such-root').expect(404);
    const after = await scrape(ctx.t);
    const moved = (labels: Record<string, string>) =>
      valueOf(after, REQUESTS, labels) - valueOf(before, REQUESTS, labels);
    expect(moved({ method: 'POST', route: 'unmatched', status: '415' })).toBe(1);
    expect(moved({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
  });

  it('counts methods the API does not answer under one method label', async () => {
    const server = ctx.t.app.getHttpServer() as Server;
    if (!server.listening) await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const before = await scrape(ctx.t);
    for (const method of ['PROPFIND', 'MKCOL', 'LOCK', 'PURGE'])
      expect((await fetch(`http://127.0.0.1:${port}${API}/events`, { method })).status).toBe(404);
    const after = await scrape(ctx.t);
    const route = `${API}/{*path}`;
    expect(
      valueOf(after, REQUESTS, { method: 'other', route, status: '404' }) -
        valueOf(before, REQUESTS, { method: 'other', route, status: '404' }),
    ).toBe(4);
    expect([...after.keys()].filter((k) => /PROPFIND|MKCOL|LOCK|PURGE/.test(k))).toEqual([]);
  });

  it('counts list totals counted (miss) and reused (hit)', async () => {
    const list = `${API}/events?per_page=3`;
    const lookups = async (work: () => Promise<unknown>) => {
      const before = await scrape(ctx.t);
      await work();
      const after = await scrape(ctx.t);
      const moved = (result: string) =>
        valueOf(after, 'calendar_cache_lookups_total', { cache: 'list_counts', result }) -
        valueOf(before, 'calendar_cache_lookups_total', { cache: 'list_counts', result });
      return { hit: moved('hit'), miss: moved('miss') };
    };
    await expect(lookups(() => ctx.t.http().get(list).expect(200))).resolves.toEqual({
      hit: 0,
      miss: 1,
    });
    await expect(lookups(() => ctx.t.http().get(list).expect(200))).resolves.toEqual({
      hit: 1,
      miss: 0,
    });
  });

  it('shows a webhook delivery: attempts by outcome, their duration, backlog and endpoints', async () => {
    const { body } = await ctx.t
      .http()
      .post(`${API}/webhooks`)
      .set(ctx.admin())
      .send({ url: ctx.receiver.url('/hook'), events: ['*'] })
      .expect(201);
    const before = await scrape(ctx.t);
    ctx.receiver.plan('/hook', [{ status: 200 }, { status: 500 }]);
    await ctx.t.http().post(`${API}/webhooks/${body.id}/ping`).set(ctx.admin()).expect(202);
    await ctx.receiver.waitFor('/hook', 1);
    await ctx.t.http().post(`${API}/webhooks/${body.id}/ping`).set(ctx.admin()).expect(202);
    await ctx.receiver.waitFor('/hook', 2);
    // The scrape-time sizes are kept 5 s: wait for a fresh read showing the one left pending.
    const after = await eventually(
      () => scrape(ctx.t),
      (m) =>
        valueOf(m, 'calendar_webhook_backlog_messages') === 1 &&
        valueOf(m, 'calendar_webhook_attempts_total', { outcome: 'rejected' }) > 0,
      15_000,
    );
    const moved = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect({
      delivered: moved('calendar_webhook_attempts_total', { outcome: 'delivered' }),
      rejected: moved('calendar_webhook_attempts_total', { outcome: 'rejected' }),
      unreachable: moved('calendar_webhook_attempts_total', { outcome: 'unreachable' }),
      timedDelivered: moved('calendar_webhook_attempt_duration_seconds_count', {
        outcome: 'delivered',
      }),
      backlog: valueOf(after, 'calendar_webhook_backlog_messages'),
      enabled: valueOf(after, 'calendar_webhook_endpoints', { state: 'enabled' }),
      disabled: valueOf(after, 'calendar_webhook_endpoints', { state: 'disabled' }),
      dbUp: valueOf(after, 'calendar_db_up'),
    }).toEqual({
      delivered: 1,
      rejected: 1,
      unreachable: 0,
      timedDelivered: 1,
      backlog: 1,
      enabled: 1,
      disabled: 0,
      dbUp: 1,
    });
    expect(valueOf(after, 'calendar_webhook_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(valueOf(after, 'calendar_webhook_oldest_pending_age_seconds')).toBeLessThan(60);
  });

  it('reports the recurrence horizon job and the changes feed', async () => {
    const metrics = await scrape(ctx.t);
    const job = { job: 'recurrence_horizon' };
    expect(valueOf(metrics, 'calendar_job_runs_total', { ...job, outcome: 'ok' })).toBe(1);
    expect(valueOf(metrics, 'calendar_job_last_run_timestamp_seconds', job)).toBeGreaterThan(
      Date.now() / 1000 - 600,
    );
    expect(metrics.has('calendar_job_last_run_duration_seconds{job="recurrence_horizon"}')).toBe(
      true,
    );
    const first = await ctx.t.http().get(`${API}/changes`).expect(200);
    const before = await scrape(ctx.t);
    await ctx.t.http().get(`${API}/changes`).query({ since: first.body.next_cursor }).expect(200);
    const after = await scrape(ctx.t);
    const polls = (name: string) => valueOf(after, name) - valueOf(before, name);
    expect(polls('calendar_changes_poll_cursor_age_seconds_count')).toBe(1);
    expect(polls('calendar_changes_poll_cursor_age_seconds_bucket{le="0"}')).toBe(1);
    expect(after.has('calendar_changes_head_sequence')).toBe(true);
    expect(after.has('calendar_idempotency_keys')).toBe(true);
  });
});

describe('metrics when the database fails', () => {
  let t: TestApp;
  let proxy: TcpProxy | undefined;

  beforeAll(async () => {
    if (process.env.TEST_ENGINE === 'mysql') {
      const { url } = mysqlTestUrl();
      const target = new URL(url);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 3306) });
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      t = await createTestApp({ METRICS_TOKEN, DATABASE_URL: proxied.toString() });
    } else {
      t = await createTestApp({ METRICS_TOKEN });
    }
  });
  afterAll(async () => {
    await proxy?.restore();
    await t?.close().catch(() => undefined);
    await proxy?.close();
  });

  /** Cuts the database away: the proxy (MySQL), or the embedded database's handle closed (SQLite). */
  async function failDatabase(): Promise<void> {
    if (proxy) return proxy.cut();
    (
      t.dataSource.driver as unknown as { databaseConnection: { close(): void } }
    ).databaseConnection.close();
  }

  it('shows in readiness, request statuses, failed statements and calendar_db_up', async () => {
    await t.http().get('/health/ready').expect(200);
    const before = await scrape(t);
    expect(valueOf(before, 'calendar_db_up')).toBe(1);
    await failDatabase();
    // The sizes read at the first scrape are kept 5 s.
    await new Promise((resolve) => setTimeout(resolve, 5100));
    await t.http().get('/health/ready').expect(503);
    // Both engines: the documented 503 (a closed SQLite handle counts as the database unavailable).
    const failed = 503;
    await t.http().get(`${API}/categories?hide_empty=false`).expect(failed);
    const after = await scrape(t);
    const moved = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect({
      ready503: moved(REQUESTS, { method: 'GET', route: '/health/ready', status: '503' }),
      listFailed: moved(REQUESTS, {
        method: 'GET',
        route: `${API}/categories`,
        status: String(failed),
      }),
      dbUp: valueOf(after, 'calendar_db_up'),
      backlog: valueOf(after, 'calendar_webhook_backlog_messages'),
    }).toEqual({ ready503: 1, listFailed: 1, dbUp: 0, backlog: NaN });
    expect(moved('calendar_db_unavailable_total', {})).toBe(1);
    // SQLite: the statement ran on the closed handle and failed (MySQL: no connection, none ran).
    if (!proxy) {
      expect(moved('calendar_db_query_errors_total', { operation: 'select' })).toBeGreaterThan(0);
    }
  });
});

describe('metrics without METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOKEN: '' });
  });
  afterAll(() => t?.close());

  it('has no /metrics at all', async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect({ status: res.status, code: res.body.code }).toEqual({
      status: 404,
      code: 'rest_no_route',
    });
  });
});
