import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { API, tokenFor, USERS } from '../helpers/test-app';
import { sleep, WebhookReceiver } from '../helpers/webhook-receiver';
import { send, ServerProcess, startServer } from './server-process';

/*
 * The webhook sender in the real entry point, on a SQLite file (once is
 * enough: the claim SQL is covered on both engines by the other suites):
 * - WEBHOOKS_WORKER=false sends nothing; the message waits in the outbox,
 *   across a restart, and the next instance with a sender delivers it;
 * - SIGTERM while an attempt is in flight: the process stops claiming, lets
 *   the attempt finish and records it before it exits;
 * - a content write's change message survives a SIGKILL between the commit
 *   and its delivery.
 */
const onSqlite = process.env.TEST_ENGINE === 'mysql' ? describe.skip : describe;

onSqlite('webhook sender in the service process', () => {
  // Each test starts service processes (a few seconds each, many more on a busy CI machine).
  jest.setTimeout(120_000);

  let dir: string;
  let server: ServerProcess | undefined;
  let receiver: WebhookReceiver;
  let admin: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-'));
    admin = `Bearer ${await tokenFor(USERS.administrator)}`;
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });
  afterAll(async () => {
    await receiver?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (env: Record<string, string> = {}) =>
    startServer({
      SQLITE_PATH: join(dir, 'calendar.sqlite'),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '100ms',
      ...env,
    });
  const call = async (method: string, path: string, body?: unknown) => {
    const reply = await send((server as ServerProcess).port, method, `${API}${path}`, {
      headers: { Authorization: admin, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: reply.status, body: JSON.parse(reply.body) as Record<string, any> };
  };

  it('an instance with WEBHOOKS_WORKER=false sends nothing; the next one with a sender does', async () => {
    server = await start({ WEBHOOKS_WORKER: 'false' });
    const created = await call('POST', '/webhooks', { url: receiver.url('/later'), events: ['*'] });
    expect(created.status).toBe(201);
    const ping = await call('POST', `/webhooks/${created.body.id}/ping`);
    expect(ping.status).toBe(202);
    await sleep(1500);
    expect(receiver.on('/later')).toEqual([]);
    await server.stop();

    server = await start();
    const [message] = await receiver.waitFor('/later', 1);
    expect(message.headers['webhook-id']).toBe(ping.body.message_id);
    expect(
      new Webhook(created.body.secret).verify(
        message.body,
        message.headers as Record<string, string>,
      ),
    ).toEqual(expect.objectContaining({ type: 'ping' }));
  });

  it('a change message whose write committed survives a SIGKILL before its delivery', async () => {
    // No sender: the process is killed with the message committed and not yet sent.
    server = await start({ WEBHOOKS_WORKER: 'false' });
    const created = await call('POST', '/webhooks', {
      url: receiver.url('/killed'),
      events: ['venue.created'],
    });
    const venue = await call('POST', '/venues', { venue: 'Na de crash' });
    expect(venue.status).toBe(201);
    server.child.kill('SIGKILL');
    expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(receiver.on('/killed')).toEqual([]);

    server = await start();
    const [message] = await receiver.waitFor('/killed', 1);
    expect(
      new Webhook(created.body.secret).verify(
        message.body,
        message.headers as Record<string, string>,
      ),
    ).toEqual({
      type: 'venue.created',
      timestamp: expect.any(String),
      data: {
        kind: 'venue',
        id: venue.body.id,
        record: expect.objectContaining({ id: venue.body.id, venue: 'Na de crash' }),
      },
    });
    await sleep(500);
    expect(receiver.on('/killed')).toHaveLength(1);
  }, 90_000);

  it('SIGTERM lets the attempt in flight finish and records it before exiting', async () => {
    receiver.plan('/slow', [{ delayMs: 1500, status: 200, body: 'took a while' }]);
    server = await start();
    const created = await call('POST', '/webhooks', { url: receiver.url('/slow'), events: ['*'] });
    const ping = await call('POST', `/webhooks/${created.body.id}/ping`);
    await receiver.waitFor('/slow', 1);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).not.toContain(created.body.secret);

    server = await start({ WEBHOOKS_WORKER: 'false' });
    const log = await call('GET', `/webhooks/${created.body.id}/deliveries`);
    expect(log.body.deliveries).toEqual([
      expect.objectContaining({
        id: ping.body.id,
        status: 'delivered',
        attempts: 1,
        last_status_code: 200,
        last_response: 'took a while',
      }),
    ]);
    expect(receiver.on('/slow')).toHaveLength(1);
  });

  it('SIGTERM gives back the claims of messages still waiting for a connection', async () => {
    receiver.plan('/queue', [], { delayMs: 1500 });
    server = await start();
    const created = await call('POST', '/webhooks', { url: receiver.url('/queue'), events: ['*'] });
    for (let i = 0; i < 10; i++) await call('POST', `/webhooks/${created.body.id}/ping`);
    // 8 connections to the endpoint at most: two messages wait for one.
    await receiver.waitFor('/queue', 8);
    await sleep(200);
    expect(receiver.on('/queue')).toHaveLength(8);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });

    // Released, not leased: the next instance sends them at once, not after the lease ran out.
    receiver.plan('/queue', []);
    server = await start();
    // Timed from readiness: a loaded machine may take long to start the process.
    const ready = Date.now();
    await receiver.waitFor('/queue', 10, 8000);
    expect(Date.now() - ready).toBeLessThan(8000);
    expect(new Set(receiver.on('/queue').map((m) => m.headers['webhook-id'])).size).toBe(10);
  });

  it('a message whose sender was killed mid-delivery is sent again once its lease runs out', async () => {
    receiver.plan('/crash', [{ delayMs: 10_000 }]);
    server = await start();
    const created = await call('POST', '/webhooks', { url: receiver.url('/crash'), events: ['*'] });
    const ping = await call('POST', `/webhooks/${created.body.id}/ping`);
    await receiver.waitFor('/crash', 1);
    server.child.kill('SIGKILL');
    await server.exited;

    const restarted = Date.now();
    server = await start();
    // The lease of one claimed delivery: the time-out (5 s) plus 15 s.
    const [first, again] = await receiver.waitFor('/crash', 2, 40_000);
    expect(Date.now() - restarted).toBeLessThan(30_000);
    expect([first.headers['webhook-id'], again.headers['webhook-id']]).toEqual([
      ping.body.message_id,
      ping.body.message_id,
    ]);
  }, 90_000);
});
