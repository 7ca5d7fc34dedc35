import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { API, mysqlTestUrl, tokenFor, USERS } from '../helpers/test-app';
import { OtlpReceiver, ReceivedSpan } from '../helpers/otlp-receiver';
import { eventually, WebhookReceiver } from '../helpers/webhook-receiver';
import { send, ServerProcess, startServer } from './server-process';

/*
 * OpenTelemetry traces of the real entry point (src/main.ts loads the SDK
 * before the modules it instruments), exported over OTLP/HTTP to a stand-in
 * collector: one request's spans (HTTP → Express route → SQL), a W3C
 * traceparent continued, the request ID on the root span, the rate limit's
 * Redis commands (Redis on 127.0.0.1:6379, as reliability/rate-limit needs)
 * and the traceparent a webhook delivery carries. Every trace is sampled
 * here (OTEL_TRACES_SAMPLER): the default samples one new trace in ten.
 */
describe('tracing', () => {
  jest.setTimeout(120_000);
  const engine = process.env.TEST_ENGINE === 'mysql' ? 'mysql' : 'sqlite';
  let dir: string;
  let collector: OtlpReceiver;
  let receiver: WebhookReceiver;
  let server: ServerProcess;
  let admin: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-tracing-'));
    collector = await new OtlpReceiver().start();
    receiver = await new WebhookReceiver().start();
    admin = `Bearer ${await tokenFor(USERS.administrator)}`;
    const database: Record<string, string> = { SQLITE_PATH: join(dir, 'calendar.sqlite') };
    if (engine === 'mysql') {
      const { url, database: name, serverUrl } = mysqlTestUrl();
      const connection = await createConnection({ uri: serverUrl });
      await connection.query(
        `CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
      await connection.end();
      database.DATABASE_URL = url;
    }
    server = await startServer({
      ...database,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      // Every request passes the rate limit, counted in Redis.
      REDIS_URL: 'redis://127.0.0.1:6379',
      RATE_LIMIT_PER_MINUTE: '100000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.stop();
    await collector?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const inTrace = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId);

  /** The span's parent chain up to the root of what was exported. */
  function ancestors(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan[] {
    const chain: ReceivedSpan[] = [];
    let parent = spans.find((s) => s.spanId === span.parentSpanId);
    while (parent && chain.length < 50) {
      chain.push(parent);
      const id = parent.parentSpanId;
      parent = spans.find((s) => s.spanId === id);
    }
    return chain;
  }

  it('traces a request: HTTP server span → Express route → SQL, continuing the caller’s traceparent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const reply = await send(server.port, 'GET', `${API}/categories?hide_empty=false`, {
      headers: { traceparent: `00-${traceId}-${callerSpan}-01`, 'x-request-id': 'trace-me-1' },
    });
    expect(reply.status).toBe(200);
    const spans = await eventually(
      async () => inTrace(traceId),
      (found) => found.some((s) => s.kind === 2) && found.some(isSql),
    );
    const root = spans.find((s) => s.kind === 2) as ReceivedSpan;
    expect({
      parent: root.parentSpanId,
      requestId: root.attributes['http.response.header.x-request-id'],
      route: root.attributes['http.route'],
      status: root.attributes['http.response.status_code'],
    }).toEqual({
      parent: callerSpan,
      requestId: ['trace-me-1'],
      route: `${API}/categories`,
      status: 200,
    });
    const sql = spans.filter(isSql);
    const chain = ancestors(sql[0], spans);
    expect(
      chain.map((s) => ({
        name: s.name,
        type: s.attributes['express.type'],
        route: s.attributes['http.route'],
      })),
    ).toEqual([
      { name: 'request handler', type: 'request_handler', route: `${API}/categories` },
      { name: `GET ${API}/categories`, type: undefined, route: `${API}/categories` },
    ]);
    expect(chain[chain.length - 1].spanId).toBe(root.spanId);
    // One Express span per request: middleware, Nest's included, has none.
    expect(spans.filter((s) => s.attributes['express.type'] !== undefined)).toHaveLength(1);
    // Statements carry placeholders, never the values.
    expect(
      sql.every(
        (s) =>
          typeof s.attributes['db.query.text'] === 'string' ||
          typeof s.attributes['db.statement'] === 'string',
      ),
    ).toBe(true);
  });

  it('traces the rate limit’s Redis commands inside the request, without the client’s address', async () => {
    const traceId = randomBytes(16).toString('hex');
    const client = `203.0.113.${randomInt(1, 255)}`;
    const reply = await send(server.port, 'GET', `${API}/tags`, {
      headers: { traceparent: `00-${traceId}-${'7'.repeat(16)}-01`, 'x-forwarded-for': client },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers['x-ratelimit-limit']).toBe('100000');
    const spans = await eventually(
      async () => inTrace(traceId),
      (found) => found.some((s) => s.kind === 2) && found.some(isRedis),
    );
    const root = spans.find((s) => s.kind === 2) as ReceivedSpan;
    const redis = spans.filter(isRedis);
    for (const span of redis) {
      const chain = ancestors(span, spans);
      expect(chain[chain.length - 1].spanId).toBe(root.spanId);
      expect({
        kind: span.kind,
        server: span.attributes['server.address'],
        port: span.attributes['server.port'],
      }).toEqual({ kind: 3, server: '127.0.0.1', port: 6379 });
      // The command by name and argument count: the keys hold the client's address.
      expect(span.attributes['db.query.text']).toMatch(/^[a-z]+ \[\d+ arguments\]$/);
      expect(JSON.stringify(span)).not.toContain(client);
    }
  });

  it('sends traceparent with a webhook delivery, from the delivery’s client span', async () => {
    const post = (path: string, body?: unknown) =>
      send(server.port, 'POST', `${API}${path}`, {
        headers: { Authorization: admin, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const created = await post('/webhooks', { url: receiver.url('/traced'), events: ['*'] });
    expect(created.status).toBe(201);
    expect((await post(`/webhooks/${JSON.parse(created.body).id}/ping`)).status).toBe(202);
    const [message] = await receiver.waitFor('/traced', 1);
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(message.headers.traceparent));
    expect(match).not.toBeNull();
    const [, traceId, spanId] = match as RegExpExecArray;
    const [client] = await eventually(
      async () => inTrace(traceId).filter((s) => s.spanId === spanId),
      (found) => found.length === 1,
    );
    expect({
      kind: client.kind,
      name: client.name,
      url: client.attributes['url.full'] ?? client.attributes['http.url'],
    }).toEqual({
      kind: 3,
      name: 'POST',
      url: receiver.url('/traced'),
    });
  });

  it('with the default sampler, traces a request the caller sampled and nothing of one it did not', async () => {
    // Ratio 0: only a caller's sampled traceparent starts a trace, so the outcome is certain.
    // A collector of its own: every span that reaches it comes from this server.
    const own = await new OtlpReceiver().start();
    const sampled = await startServer({
      SQLITE_PATH: join(dir, 'calendar.sqlite'),
      ...(engine === 'mysql' && { DATABASE_URL: mysqlTestUrl().url }),
      OTEL_EXPORTER_OTLP_ENDPOINT: own.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    try {
      const [skipped, chosen] = [randomBytes(16), randomBytes(16)].map((b) => b.toString('hex'));
      const path = `${API}/categories?hide_empty=false`;
      const unsampled = await send(sampled.port, 'GET', path, {
        headers: { traceparent: `00-${skipped}-${'5'.repeat(16)}-00` },
      });
      const plain = await send(sampled.port, 'GET', path);
      // Not chosen, with a body: passed by the HTTP instrumentation, its statements untraced too.
      const write = await send(sampled.port, 'POST', `${API}/categories`, {
        headers: { Authorization: admin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `Untraced ${randomInt(1e9)}` }),
      });
      const traced = await send(sampled.port, 'GET', path, {
        headers: { traceparent: `00-${chosen}-${'6'.repeat(16)}-01` },
      });
      expect([unsampled.status, plain.status, write.status, traced.status]).toEqual([
        200, 200, 201, 200,
      ]);
      const spans = await eventually(
        async () => own.spans.filter((s) => s.traceId === chosen),
        (found) => found.some((s) => s.kind === 2) && found.some(isSql),
      );
      expect(spans.filter((s) => s.attributes['express.type'] !== undefined)).toHaveLength(1);
      expect(spans.find((s) => s.kind === 2)?.attributes['http.route']).toBe(`${API}/categories`);
      // The requests sent before the chosen one left no span at all: no server span, no statement.
      expect(own.spans.filter((s) => s.traceId !== chosen)).toEqual([]);
    } finally {
      await sampled.stop();
      await own.stop();
    }
  });

  function isRedis(span: ReceivedSpan): boolean {
    return (span.attributes['db.system.name'] ?? span.attributes['db.system']) === 'redis';
  }

  function isSql(span: ReceivedSpan): boolean {
    const system = span.attributes['db.system.name'] ?? span.attributes['db.system'];
    return span.kind === 3 && (system === 'sqlite' || system === 'mysql');
  }
});
