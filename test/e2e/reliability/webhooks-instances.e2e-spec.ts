import { API, createTestApp, mysqlTestUrl, TestApp, tokenFor, USERS } from '../helpers/test-app';
import { eventually, sleep, WebhookReceiver } from '../helpers/webhook-receiver';
import { send, ServerProcess, startServer } from './server-process';

/*
 * Two service processes with their senders on one MariaDB database (docs/api.md
 * §15: each message is sent by one instance at a time). 1,000 writes spread
 * over both; a receiver counts every webhook-id: each arrives exactly once,
 * and every delivery is recorded delivered at its first attempt. Again with
 * DATABASE_PORTABLE_SQL, whose claims lease without SKIP LOCKED (docs/scaling.md).
 * MySQL only: on SQLite one process sends.
 */
const onMysql = process.env.TEST_ENGINE === 'mysql' ? describe.each : describe.skip.each;

const CONCURRENCY = 8;

onMysql([
  { portableSql: 'false', WRITES: 1000 },
  { portableSql: 'true', WRITES: 300 },
])(
  'webhook senders on two instances (DATABASE_PORTABLE_SQL=$portableSql)',
  ({ portableSql, WRITES }) => {
    let t: TestApp;
    let receiver: WebhookReceiver;
    const servers: ServerProcess[] = [];

    beforeAll(async () => {
      receiver = await new WebhookReceiver().start();
      // Migrates and empties the database; sends nothing itself.
      t = await createTestApp({ WEBHOOKS_WORKER: 'false' });
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await t?.close();
      await receiver?.stop();
    });

    it(`delivers every message of ${WRITES} writes exactly once`, async () => {
      const admin = `Bearer ${await tokenFor(USERS.administrator)}`;
      // Started side by side (the schema is there already): start-up is most of the test's time.
      servers.push(
        ...(await Promise.all(
          [0, 1].map(() =>
            startServer({
              DATABASE_URL: mysqlTestUrl().url,
              WEBHOOKS_WORKER: 'true',
              WEBHOOK_ALLOW_HTTP: 'true',
              WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
              DATABASE_PORTABLE_SQL: portableSql,
            }),
          ),
        )),
      );
      const call = (port: number, method: string, path: string, body?: unknown) =>
        send(port, method, `${API}${path}`, {
          headers: { Authorization: admin, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const endpoint = await call(servers[0].port, 'POST', '/webhooks', {
        url: receiver.url('/count'),
        events: ['venue.created'],
      });
      expect(endpoint.status).toBe(201);

      let next = 0;
      const writer = async () => {
        while (next < WRITES) {
          const i = next++;
          const res = await call(servers[i % 2].port, 'POST', '/venues', { venue: `Zaal ${i}` });
          expect(res.status).toBe(201);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, writer));

      const ids = () => new Set(receiver.on('/count').map((m) => m.headers['webhook-id']));
      await eventually(
        async () => ids().size,
        (size) => size >= WRITES,
        60_000,
      );
      // Anything sent twice would arrive now.
      await sleep(1500);
      expect([receiver.on('/count').length, ids().size]).toEqual([WRITES, WRITES]);
      const log: Array<{ status: string; attempts: number | string; n: number | string }> =
        await t.dataSource.query(
          'SELECT status, attempts, COUNT(*) AS n FROM webhook_deliveries GROUP BY status, attempts',
        );
      // Every delivery delivered; one sent again after a failed attempt (which never reached
      // the receiver: each webhook-id arrived once) is a retry, not a duplicate, and is rare.
      expect(log.every((row) => row.status === 'delivered')).toBe(true);
      const first = log.find((row) => Number(row.attempts) === 1);
      expect(Number(first?.n)).toBeGreaterThanOrEqual(WRITES - 5);
      expect(log.reduce((sum, row) => sum + Number(row.n), 0)).toBe(WRITES);
      for (const server of servers) expect(server.output()).not.toMatch(/error/i);
    }, 180_000);
  },
);
