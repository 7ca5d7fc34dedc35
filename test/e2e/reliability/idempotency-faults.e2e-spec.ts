import { beforeCommit } from '../helpers/before-commit';
import { API, createTestApp, errorBody, mysqlTestUrl, TestApp } from '../helpers/test-app';
import { TcpProxy } from '../helpers/tcp-proxy';

/*
 * The fault earlier reliability runs found (database-faults): a create whose
 * COMMIT reached MariaDB but whose reply was lost is answered 503, yet it
 * committed. With an Idempotency-Key the retry must replay it, not create it
 * again (docs/api.md §13). A TCP proxy between the service and MariaDB passes
 * that one COMMIT on and resets the service's connection before the reply.
 * MySQL project only: SQLite is in-process.
 */
const onMysql = process.env.TEST_ENGINE === 'mysql' ? describe : describe.skip;

onMysql('idempotency under database faults', () => {
  let proxy: TcpProxy;
  let t: TestApp;

  beforeAll(async () => {
    const { url } = mysqlTestUrl();
    const target = new URL(url);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 3306) });
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    t = await createTestApp({ DATABASE_URL: proxied.toString(), REQUEST_TIMEOUT_MS: '2500' });
  });
  afterAll(async () => {
    await proxy?.restore();
    await t?.close();
    await proxy?.close();
    // mysql2 leaves the timeout timer of a query whose connection was reset running: let it pass.
    await new Promise((resolve) => setTimeout(resolve, 2500));
  });

  const create = (name: string, key: string) =>
    t
      .http()
      .post(`${API}/categories`)
      .set('Host', 'api.test')
      .set('Authorization', t.auth.editor)
      .set('Idempotency-Key', key)
      .send({ name });
  const total = async () =>
    Number(
      (await t.http().get(`${API}/categories?hide_empty=false`).expect(200)).headers['x-total'],
    );

  it('a create whose COMMIT reply was lost answers 503; the retry with its key replays it', async () => {
    // Arm the proxy in the create's own transaction, just before its COMMIT.
    let lost: Promise<void> | undefined;
    const unregister = beforeCommit(t.app, async (manager) => {
      if (lost) return;
      const [row] = (await manager.query(
        "SELECT COUNT(*) AS n FROM term_translations WHERE name = 'Verloren'",
      )) as [{ n: unknown }];
      if (Number(row.n) > 0) lost = proxy.loseReplyTo('COMMIT');
    });
    try {
      const first = await create('Verloren', 'commit-lost');
      expect(lost).toBeInstanceOf(Promise);
      await lost;
      expect(first.status).toBe(503);
      expect(first.body).toEqual(errorBody('rest_service_unavailable', 503));
    } finally {
      unregister();
    }
    // It committed anyway.
    expect(await total()).toBe(1);

    const retry = await create('Verloren', 'commit-lost').expect(201);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    const read = await t
      .http()
      .get(`${API}/categories/${retry.body.id}`)
      .set('Host', 'api.test')
      .expect(200);
    expect(retry.body).toEqual(read.body);
    expect(retry.headers.location).toBe(read.body.urls.self);
    expect(await total()).toBe(1);
    // And again: the stored answer now.
    const again = await create('Verloren', 'commit-lost').expect(201);
    expect(again.body).toEqual(retry.body);
    expect(again.headers['idempotency-replayed']).toBe('true');
  });

  it('without a key the same fault leaves a client that retries with a duplicate (why the key exists)', async () => {
    let lost: Promise<void> | undefined;
    const unregister = beforeCommit(t.app, async (manager) => {
      if (lost) return;
      const [row] = (await manager.query(
        "SELECT COUNT(*) AS n FROM term_translations WHERE name = 'Dubbel'",
      )) as [{ n: unknown }];
      if (Number(row.n) > 0) lost = proxy.loseReplyTo('COMMIT');
    });
    const before = await total();
    try {
      const first = await t
        .http()
        .post(`${API}/categories`)
        .set('Authorization', t.auth.editor)
        .send({ name: 'Dubbel' });
      await lost;
      expect(first.status).toBe(503);
    } finally {
      unregister();
    }
    // The write committed although the client was told 503.
    expect(await total()).toBe(before + 1);
  });
});
