/**
 * Webhook change messages (docs/api.md §15, issue 15), one service instance
 * over real HTTP with a receiver on 127.0.0.1 answering 200 at once:
 *
 * The service runs as its own process (`dist/main.js`, pinned to core 0 when
 * taskset is there), the clients and the receiver in this one (core 1).
 *
 * 1. event creates per second without any endpoint, then with one endpoint
 *    subscribed to everything (the outbox written in every write, the sender
 *    delivering alongside);
 * 2. commit → delivery latency under that load: the receiver's arrival time
 *    minus the message's `timestamp` (taken in the write's transaction, just
 *    before COMMIT);
 * 3. delivery rate of a burst: daily series of ~730 occurrences each, one
 *    message per occurrence, from the first commit to the last arrival.
 *
 *   npm run bench:webhooks -- [--database-url mysql://…/calendar_bench_hooks] [--creates 600] [--connections 4] [--series 3] [--no-pin] [--profile DIR]
 *
 * Without --database-url it runs on a fresh SQLite file. A MySQL database
 * whose name does not contain "bench" is refused (the script empties it).
 */
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { DateTime } from 'luxon';
import { hasTaskset, pinSelf, serviceReady, startServer, stopAll } from './bench/processes';
import { cpuSeconds, ensureBuilt, freePort } from './shared/process-tools';

const ROOT = resolve(__dirname, '..');
const SECRET = 'calendar-bench-secret-long-enough-for-hs256-0123456789';
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      creates: { type: 'string', default: '600' },
      connections: { type: 'string', default: '4' },
      series: { type: 'string', default: '3' },
      'no-pin': { type: 'boolean', default: false },
      /** Writes a V8 CPU profile of the service into this folder (node --cpu-prof). */
      profile: { type: 'string' },
    },
  });
  const databaseUrl = values['database-url'] ?? '';
  if (databaseUrl && !/bench/.test(new URL(databaseUrl).pathname))
    throw new Error('--database-url must name a database whose name contains "bench"');
  if (databaseUrl) await recreate(databaseUrl);

  // The service in its own process (pinned to core 0), the clients and the receiver here
  // (core 1), as `npm run bench` measures: what a create costs is the service's work alone.
  const entry = ensureBuilt(ROOT, log);
  const pin = !values['no-pin'] && hasTaskset();
  if (pin) pinSelf(1);
  const workDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const port = await freePort();
  const service = await startServer({
    name: 'service',
    port,
    args: [
      ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values.profile)}`] : []),
      entry,
    ],
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      SQLITE_PATH: join(workDir, 'calendar.sqlite'),
      AUTH_JWT_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    },
    core: pin ? 0 : undefined,
    logFile: join(workDir, 'service.log'),
    ready: serviceReady,
  });
  const base = `http://127.0.0.1:${port}/calendar/events/v1`;
  const token = await new SignJWT({ role: 'administrator' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('1')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(SECRET));
  const request = (method: string, path: string, body?: object) =>
    fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
  const call = async (method: string, path: string, body?: object) => {
    const res = await request(method, path, body);
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: number };
  };

  // The receiver: arrival time minus the message's timestamp, per message.
  const latencies: number[] = [];
  const arrivals: number[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string };
      latencies.push(at - Date.parse(timestamp));
      arrivals.push(at);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  /** Deliveries stored so far for the endpoint (one per message); the bench waits for all. */
  const countDeliveries = async (endpoint: number) => {
    const res = await request('GET', `/webhooks/${endpoint}/deliveries?per_page=1`);
    return Number(res.headers.get('x-total'));
  };

  const today = DateTime.utc().toISODate() as string;
  let n = 0;
  const createEvents = async (count: number, connections: number) => {
    let left = count;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (left-- > 0) {
          n++;
          await call('POST', '/events', {
            title: `Concert ${n}`,
            start_date: `${today} 20:00:00`,
            end_date: `${today} 22:00:00`,
            categories: [`Genre ${n % 10}`],
          });
        }
      }),
    );
    return count / ((performance.now() - started) / 1000);
  };
  const creates = Number(values.creates);
  const connections = Number(values.connections);
  const waitDelivered = async (count: number) => {
    const deadline = Date.now() + 120_000;
    while (arrivals.length < count && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
  };

  // The service's CPU per create: a steadier measure than creates/s on a shared machine
  // (it counts only the service's own work, not time it waited for a core).
  const cpu = () => cpuSeconds(service.pid) ?? NaN;

  // Warm-up, then without an endpoint, then with one (each event: event.created + category.updated).
  await createEvents(50, connections);
  const cpuWithout = cpu();
  const without = await createEvents(creates, connections);
  const cpuPerCreateWithout = ((cpu() - cpuWithout) * 1000) / creates;
  const endpoint = (await call('POST', '/webhooks', { url: hook, events: ['*'] })).id;
  const cpuWith = cpu();
  const withOutbox = await createEvents(creates, connections);
  const cpuPerCreateWith = ((cpu() - cpuWith) * 1000) / creates;
  const expected = await countDeliveries(endpoint);
  await waitDelivered(expected);
  // Until the last of their messages was delivered: the creates' whole cost with the outbox.
  const cpuPerCreateDelivered = ((cpu() - cpuWith) * 1000) / creates;
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

  // Burst: daily series, ~730 occurrences each.
  const burstFrom = arrivals.length;
  const burstStarted = Date.now();
  for (let i = 0; i < Number(values.series); i++) {
    await call('POST', '/events', {
      title: `Dagelijks ${i}`,
      start_date: `${today} 07:00:00`,
      end_date: `${today} 08:00:00`,
      timezone: 'Europe/Amsterdam',
      recurrence: ['RRULE:FREQ=DAILY'],
    });
  }
  const burstWritten = Date.now() - burstStarted;
  const burstTotal = await countDeliveries(endpoint);
  await waitDelivered(burstTotal);
  const burst = burstTotal - burstFrom;
  const burstSeconds = (arrivals[arrivals.length - 1] - burstStarted) / 1000;

  await stopAll();
  receiver.close();
  console.log(
    `engine: ${databaseUrl ? 'mysql' : 'sqlite'}; service ${pin ? 'pinned to core 0, clients and receiver on core 1' : 'not pinned'}; ${creates} event creates per mode over ${connections} connections; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log('| measure | figure |\n|---|---|');
  console.log(`| creates/s without an endpoint | ${without.toFixed(1)} |`);
  console.log(
    `| creates/s with one endpoint (outbox + sender) | ${withOutbox.toFixed(1)} (${(((withOutbox - without) / without) * 100).toFixed(1)} %) |`,
  );
  console.log(
    `| service CPU per create without / with one endpoint (during the creates; until all delivered) | ${cpuPerCreateWithout.toFixed(2)} / ${cpuPerCreateWith.toFixed(2)} ms (${(((cpuPerCreateWith - cpuPerCreateWithout) / cpuPerCreateWithout) * 100).toFixed(1)} %); ${cpuPerCreateDelivered.toFixed(2)} ms |`,
  );
  console.log(
    `| commit → delivery under that load (${sorted.length} messages) | p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${sorted[sorted.length - 1]} ms |`,
  );
  console.log(
    `| burst: ${values.series} daily series written in ${burstWritten} ms, ${burst} messages delivered | ${(burst / burstSeconds).toFixed(0)} messages/s (first commit → last arrival ${burstSeconds.toFixed(2)} s) |`,
  );
}

/** A fresh database for each run. */
async function recreate(url: string): Promise<void> {
  const { createConnection } = await import('mysql2/promise');
  const server = new URL(url);
  const name = server.pathname.replace(/^\//, '');
  server.pathname = '/';
  const connection = await createConnection({ uri: server.toString() });
  await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await connection.query(
    `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  );
  await connection.end();
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    console.error(error);
    await stopAll();
    process.exit(1);
  },
);
