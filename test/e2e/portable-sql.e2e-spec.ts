import { FeedClient } from './helpers/changes';
import { API, createTestApp, TestApp } from './helpers/test-app';
import { eventually, WebhookReceiver } from './helpers/webhook-receiver';
import { recordMysqlStatements } from './helpers/mysql-statements';

/*
 * DATABASE_PORTABLE_SQL (docs/scaling.md): the statements MySQL-compatible
 * distributed engines lack (SKIP LOCKED, the multi-table UPDATE that takes the
 * change sequence and bumps the data version) are not sent, and writes, the
 * changes feed and webhook deliveries work as without it. MySQL only: SQLite
 * never sends either.
 */
const onMysql = process.env.TEST_ENGINE === 'mysql' ? describe.each : describe.skip.each;

const SKIP_LOCKED = /SKIP LOCKED/i;
const MULTI_TABLE_UPDATE = /^UPDATE change_state c, data_version d/i;
/** INSERT … RETURNING (MariaDB ≥ 10.5): event bulk writes, a write's webhook deliveries. */
const RETURNING = /^INSERT .* RETURNING /is;
/** The sender's claim of due deliveries (with SKIP LOCKED unless portable). */
const CLAIM = /^SELECT id FROM webhook_deliveries WHERE .* ORDER BY next_attempt_ms LIMIT/is;

onMysql([{ portableSql: true }, { portableSql: false }])(
  'SQL sent with DATABASE_PORTABLE_SQL=$portableSql',
  ({ portableSql }) => {
    let t: TestApp;
    let receiver: WebhookReceiver;
    const sent: string[] = [];
    let spy: jest.SpyInstance;

    beforeAll(async () => {
      receiver = await new WebhookReceiver().start();
      t = await createTestApp({
        DATABASE_PORTABLE_SQL: String(portableSql),
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      });
      spy = recordMysqlStatements(sent);
    });
    afterAll(async () => {
      spy?.mockRestore();
      await t?.close();
      await receiver?.stop();
    });

    it('writes, follows the changes feed and delivers webhooks; sends only the SQL the switch allows', async () => {
      const endpoint = await t
        .http()
        .post(`${API}/webhooks`)
        .set('Authorization', t.auth.administrator)
        .send({ url: receiver.url('/portable'), events: ['venue.created', 'venue.updated'] })
        .expect(201);
      const client = new FeedClient(t);
      await client.sync();

      const ids: number[] = [];
      for (const name of ['Zaal A', 'Zaal B', 'Zaal C']) {
        const created = await t
          .http()
          .post(`${API}/venues`)
          .set('Authorization', t.auth.editor)
          .send({ venue: name, status: 'publish' })
          .expect(201);
        ids.push(created.body.id as number);
      }
      await t
        .http()
        .patch(`${API}/venues/${ids[0]}`)
        .set('Authorization', t.auth.editor)
        .send({ venue: 'Zaal A2' })
        .expect(200);

      await client.sync();
      expect(client.keys().filter((key) => key.startsWith('venue:'))).toEqual(
        ids.map((id) => `venue:${id}`).sort(),
      );
      const seqs: Array<{ n: string | number; distinct_seq: string | number }> =
        await t.dataSource.query(
          'SELECT COUNT(*) AS n, COUNT(DISTINCT seq) AS distinct_seq FROM changes',
        );
      expect(Number(seqs[0].n)).toBe(Number(seqs[0].distinct_seq));

      const messages = await eventually(
        async () => receiver.on('/portable'),
        (list) => list.length >= 4,
        15_000,
      );
      expect(messages.map((m) => JSON.parse(m.body).type).sort()).toEqual([
        'venue.created',
        'venue.created',
        'venue.created',
        'venue.updated',
      ]);
      expect(endpoint.body.id).toEqual(expect.any(Number));

      // The sender's poll claims due deliveries every 500 ms: wait for one claim to be sent.
      await eventually(
        async () => sent.filter((sql) => CLAIM.test(sql)).length,
        (claims) => claims >= 1,
        15_000,
      );
      const skipLocked = sent.filter((sql) => SKIP_LOCKED.test(sql));
      const multiTable = sent.filter((sql) => MULTI_TABLE_UPDATE.test(sql));
      const returning = sent.filter((sql) => RETURNING.test(sql));
      if (portableSql) {
        expect([skipLocked, multiTable, returning]).toEqual([[], [], []]);
      } else {
        expect(multiTable.length).toBe(4); // one per write: three creates and a PATCH
        expect(skipLocked.length).toBeGreaterThanOrEqual(1);
      }
    });
  },
);
