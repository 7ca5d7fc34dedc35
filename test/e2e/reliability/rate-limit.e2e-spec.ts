import { createServer } from 'node:net';
import { randomInt } from 'node:crypto';
import { ThrottlerStorage } from '@nestjs/throttler';
import { API, createTestApp, errorBody, TestApp } from '../helpers/test-app';
import { withStall } from '../helpers/stall';
import { eventually } from '../helpers/webhook-receiver';

/*
 * Rate limiting per client (docs/api.md §8, §10): RATE_LIMIT_PER_MINUTE requests
 * per client per minute across all routes, then 429 rest_too_many_requests with
 * Retry-After; health probes never count; 0 turns it off. With REDIS_URL,
 * several instances share one budget; when Redis is down the service answers
 * without limiting rather than failing.
 */
const REDIS_URL = 'redis://127.0.0.1:6379';

/** A client address of its own per test and run, so budgets never collide (Redis outlives runs). */
function clientIp(): string {
  return `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

describe('rate limiting', () => {
  describe('in memory, 5 per minute', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '5', REDIS_URL: '' });
    });
    afterAll(() => t?.close());

    it('answers the 6th request of a client, on any route, with 429 and Retry-After', async () => {
      const ip = clientIp();
      const routes = [
        `${API}/categories`,
        `${API}/tags`,
        `${API}/categories?hide_empty=false`,
        API,
        `${API}/categories/999`,
      ];
      const statuses = [];
      for (const route of routes) {
        statuses.push((await t.http().get(route).set('X-Forwarded-For', ip)).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 404]);

      const res = await t.http().get(`${API}/tags`).set('X-Forwarded-For', ip).expect(429);
      expect(res.body).toEqual(errorBody('rest_too_many_requests', 429));
      // The real wait: the client's budget frees up a minute after it ran out.
      expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(55);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
      // Writes count too (and are refused before authentication or validation).
      await t
        .http()
        .post(`${API}/categories`)
        .set('X-Forwarded-For', ip)
        .set('Authorization', t.auth.editor)
        .send({ name: 'Over the limit' })
        .expect(429);
    });

    it('keeps clients apart by X-Forwarded-For from a loopback proxy', async () => {
      const [a, b] = [clientIp(), clientIp()];
      for (let i = 0; i < 5; i++) await t.http().get(`${API}/tags`).set('X-Forwarded-For', a);
      const limited = await t.http().get(`${API}/tags`).set('X-Forwarded-For', a);
      const other = await t.http().get(`${API}/tags`).set('X-Forwarded-For', b);
      // The proxy's own address is trusted, the client-supplied part of the chain is not.
      const chained = await t.http().get(`${API}/tags`).set('X-Forwarded-For', `${b}, ${a}`);
      expect([limited.status, other.status, chained.status]).toEqual([429, 200, 429]);
      expect(chained.body).toEqual(errorBody('rest_too_many_requests', 429));
    });

    it('never limits the health probes', async () => {
      const ip = clientIp();
      for (let i = 0; i < 6; i++) await t.http().get(`${API}/tags`).set('X-Forwarded-For', ip);
      const statuses = new Set<number>();
      for (let i = 0; i < 20; i++) {
        statuses.add((await t.http().get('/health/live').set('X-Forwarded-For', ip)).status);
        statuses.add((await t.http().get('/health/ready').set('X-Forwarded-For', ip)).status);
      }
      expect([...statuses]).toEqual([200]);
      // The client's budget was spent before the probes: its next request is refused.
      await t.http().get(`${API}/tags`).set('X-Forwarded-For', ip).expect(429);
    });
  });

  describe('RATE_LIMIT_PER_MINUTE=0', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '0', REDIS_URL: '' });
    });
    afterAll(() => t?.close());

    it('never limits', async () => {
      const ip = clientIp();
      const statuses = new Set<number>();
      for (let i = 0; i < 40; i++) {
        statuses.add((await t.http().get(`${API}/tags`).set('X-Forwarded-For', ip)).status);
      }
      expect([...statuses]).toEqual([200]);
    });
  });

  describe('shared in Redis between two instances', () => {
    let one: TestApp;
    let two: TestApp;
    beforeAll(async () => {
      const env = { RATE_LIMIT_PER_MINUTE: '5', REDIS_URL };
      one = await createTestApp(env);
      two = await createTestApp(env);
      // An instance waits at most a second for Redis at start-up, then fails open until
      // it connects: on a loaded machine that can be later, so wait until both count.
      for (const app of [one, two]) await reachesRedis(app);
    });
    afterAll(async () => {
      await one?.close();
      await two?.close();
    });

    it('counts a client once across instances', async () => {
      const ip = clientIp();
      const statuses = [];
      for (const app of [one, two, one, two, two]) {
        statuses.push((await app.http().get(`${API}/tags`).set('X-Forwarded-For', ip)).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      for (const app of [one, two]) {
        const res = await app
          .http()
          .get(`${API}/categories`)
          .set('X-Forwarded-For', ip)
          .expect(429);
        expect(res.body).toEqual(errorBody('rest_too_many_requests', 429));
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(55);
      }
      // Another client has its own budget.
      await two.http().get(`${API}/tags`).set('X-Forwarded-For', clientIp()).expect(200);
    });
  });

  describe('Redis unreachable', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({
        RATE_LIMIT_PER_MINUTE: '5',
        REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      });
    });
    afterAll(() => t?.close());

    it('answers without limiting (fail-open) and without waiting for Redis', async () => {
      const ip = clientIp();
      // Per answer: its time less this process's stalls meanwhile. Waiting for Redis is idle
      // time, which no stall hides; a busy machine's late timers and starved CPU are not that.
      const times: number[] = [];
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        const [, stallMs] = await withStall(() =>
          t.http().get(`${API}/tags`).set('X-Forwarded-For', ip).expect(200),
        );
        times.push(performance.now() - started - stallMs);
      }
      // Waiting for Redis would cost its connect timeout (1 s) on every request; a
      // single slow answer on a busy machine (GC, scheduling) is not that.
      expect(Math.max(...times)).toBeLessThan(1000);
      expect(times.sort((a, b) => a - b)[5]).toBeLessThan(250);
    });
  });
});

/** Resolves once the instance's rate-limit store counts in Redis (a fail-open answer counts 0). */
async function reachesRedis(t: TestApp): Promise<void> {
  const storage = t.app.get<ThrottlerStorage>(ThrottlerStorage);
  const key = `calendar-rate:probe:${clientIp()}`;
  await eventually(
    () => storage.increment(key, 60_000, 1_000, 0, 'probe'),
    (record) => record.totalHits > 0,
  );
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
