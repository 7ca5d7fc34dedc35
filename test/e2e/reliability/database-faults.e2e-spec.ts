import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../../src/database/data-source-options';
import { API, createTestApp, errorBody, mysqlTestUrl, TestApp } from '../helpers/test-app';
import { withStall } from '../helpers/stall';
import { TcpProxy } from '../helpers/tcp-proxy';

/*
 * The database disappears under a running service: a TCP proxy between the
 * service and MariaDB is cut (connections reset, new ones refused) or frozen
 * (a partition: sockets stay open, nothing flows). Readiness and requests
 * answer 503 quickly, the service recovers by itself, and no acknowledged
 * write is lost. MySQL project only: SQLite is in-process.
 */
const onMysql = process.env.TEST_ENGINE === 'mysql' ? describe : describe.skip;

/** REQUEST_TIMEOUT_MS for this suite: the bound on any request while the database hangs. */
const REQUEST_TIMEOUT_MS = 2500;
const LIST = `${API}/categories?hide_empty=false`;

onMysql('database faults', () => {
  let proxy: TcpProxy;
  let t: TestApp;

  beforeAll(async () => {
    const { url } = mysqlTestUrl();
    const target = new URL(url);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 3306) });
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    t = await createTestApp({
      DATABASE_URL: proxied.toString(),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    await proxy?.restore();
    await t?.close();
    await proxy?.close();
    // mysql2 leaves the timeout timer of a query whose connection was reset running
    // (it fires into a settled promise): let the last ones pass so jest exits cleanly.
    await sleep(REQUEST_TIMEOUT_MS);
  });
  afterEach(() => proxy.restore());

  const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const started = Date.now();
    const result = await work();
    return [result, Date.now() - started];
  };

  /** Polls until the list answers 200 again; returns how long that took. */
  const recovery = async (limitMs = 10_000): Promise<number> => {
    const started = Date.now();
    for (;;) {
      const res = await t.http().get(LIST);
      if (res.status === 200) return Date.now() - started;
      expect(res.status).toBe(503);
      if (Date.now() - started > limitMs) throw new Error('the service did not recover');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it.each(['cut', 'frozen'] as const)(
    'database %s: ready and requests answer 503 in bounded time, then recover by themselves',
    async (fault) => {
      await t.http().get(LIST).expect(200);
      await t.http().get('/health/ready').expect(200);
      if (fault === 'cut') await proxy.cut();
      else proxy.freeze();

      const [[ready, readyMs], readyStallMs] = await withStall(() =>
        timed(() => t.http().get('/health/ready')),
      );
      expect(ready.status).toBe(503);
      expect(ready.headers['retry-after']).toBe('5');
      expect(readyMs).toBeLessThan(2000 + readyStallMs);

      const [[list, listMs], stallMs] = await withStall(() => timed(() => t.http().get(LIST)));
      expect(list.status).toBe(503);
      expect(list.body).toEqual(errorBody('rest_service_unavailable', 503));
      expect(list.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(listMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1000 + stallMs);
      console.log(
        `${fault}: ready ${readyMs} ms, list ${listMs} ms (process stalled ${stallMs} ms)`,
      );

      await proxy.restore();
      const recoveredMs = await recovery();
      await t.http().get('/health/ready').expect(200);
      console.log(`${fault}: recovered in ${recoveredMs} ms`);
    },
  );

  it('a partition that never resets the pooled connections: the service still recovers', async () => {
    // Every pooled connection gets stuck in a query on a silent socket; when the
    // network comes back those sockets stay dead (no reset ever arrives).
    await Promise.all(Array.from({ length: 40 }, () => t.http().get(LIST).expect(200)));
    // How many the pool opened depends on how the 40 overlapped; never more than its 10.
    // The 14 requests below outnumber them, so every open one gets stuck.
    expect(proxy.openConnections).toBeGreaterThanOrEqual(1);
    expect(proxy.openConnections).toBeLessThanOrEqual(10);
    proxy.freeze();
    const [stuck, stallMs] = await withStall(() =>
      Promise.all(Array.from({ length: 14 }, () => timed(() => t.http().get(LIST)))),
    );
    for (const [res, ms] of stuck) {
      expect(res.status).toBe(503);
      expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS + 1000 + stallMs);
    }
    await proxy.restore({ keepFrozen: true });
    const recoveredMs = await recovery(3 * REQUEST_TIMEOUT_MS);
    const slowestMs = Math.max(...stuck.map(([, ms]) => ms));
    console.log(
      `vanished peer: 503s within ${slowestMs} ms (process stalled ${stallMs} ms), recovered in ${recoveredMs} ms`,
    );
  });

  it('a partition in the middle of a transaction: its statement times out and its connection is thrown away', async () => {
    // A transaction holds its connection: a statement that never gets a reply must fail by
    // its own time-out (the lean query path's deadlines, not mysql2's), with mysql2's error,
    // and the connection must leave the pool, or transactions would wait for ever.
    const proxied = new URL(mysqlTestUrl().url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const dataSource = new DataSource(
      dataSourceOptions({
        databaseUrl: proxied.toString(),
        sqlitePath: '',
        migrationsRun: false,
        queryTimeoutMs: 500,
      }),
    );
    await dataSource.initialize();
    try {
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      await expect(runner.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
      proxy.freeze();
      const started = Date.now();
      const failure = (await runner.query('SELECT 2 AS two').catch((e: unknown) => e)) as {
        driverError?: { code?: string };
      };
      const tookMs = Date.now() - started;
      expect(failure.driverError?.code).toBe('PROTOCOL_SEQUENCE_TIMEOUT');
      expect(tookMs).toBeGreaterThanOrEqual(500);
      expect(tookMs).toBeLessThan(2000);
      await runner.release().catch(() => undefined);
      await proxy.restore({ keepFrozen: true });
      // The frozen connection was thrown away: a new transaction gets a working one.
      await expect(
        dataSource.transaction((manager) => manager.query('SELECT 3 AS three')),
      ).resolves.toEqual([{ three: 3 }]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('never loses an acknowledged write while the database is cut and restored at random', async () => {
    const total = 150;
    const workers = 4;
    const outcomes: Array<{ name: string; status: number; id?: number; body: unknown }> = [];
    let next = 0;
    let done = false;
    let faults = 0;
    const acknowledgedSoFar = () => outcomes.filter((o) => o.status === 201).length;

    const chaos = (async () => {
      let acknowledgedAtRestore = 0;
      while (!done) {
        await sleep(50 + Math.random() * 250);
        // Writes get through between faults however slow the machine: the next fault
        // waits for a write acknowledged since the last restore (or for the end).
        while (!done && acknowledgedSoFar() === acknowledgedAtRestore) await sleep(10);
        if (done) break;
        faults++;
        // Mostly crashes; now and then a short partition (requests then wait for the timeouts).
        if (faults % 8 === 0) proxy.freeze();
        else await proxy.cut();
        await sleep(Math.random() * 100);
        await proxy.restore();
        acknowledgedAtRestore = acknowledgedSoFar();
      }
    })();
    const worker = async () => {
      while (next < total) {
        const name = `Durable ${next++}`;
        const res = await t
          .http()
          .post(`${API}/categories`)
          .set('Authorization', t.auth.editor)
          .send({ name });
        outcomes.push({ name, status: res.status, id: res.body?.id, body: res.body });
        if (res.status === 503) expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
        await sleep(Math.random() * 60);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    done = true;
    await chaos;
    await proxy.restore();
    await recovery();

    const acknowledged = outcomes.filter((o) => o.status === 201);
    const refused = outcomes.filter((o) => o.status !== 201);
    // The only failure a client may see is the documented 503.
    for (const o of refused) expect(o.body).toEqual(errorBody('rest_service_unavailable', 503));
    expect(outcomes).toHaveLength(total);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);

    for (const o of acknowledged) {
      const res = await t.http().get(`${API}/categories/${o.id}`);
      expect({ name: o.name, status: res.status, read: res.body.name }).toEqual({
        name: o.name,
        status: 200,
        read: o.name,
      });
    }
    const stored = new Set<string>();
    for (let page = 1; ; page++) {
      const res = await t.http().get(`${LIST}&per_page=50&page=${page}`).expect(200);
      for (const term of res.body.categories as Array<{ name: string }>) stored.add(term.name);
      if (page >= res.body.total_pages) break;
    }
    // A 503 may still have committed (the reply was lost): never the other way round.
    const committedAnyway = refused.filter((o) => stored.has(o.name)).length;
    console.log(
      `writes under faults: ${total} creates, ${faults} faults, ${acknowledged.length} acknowledged ` +
        `(all readable), ${refused.length} answered 503 (${committedAnyway} of them committed anyway)`,
    );
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
