/**
 * Webhook change messages (docs/api.md §15, issue 15), one service instance
 * over real HTTP with a receiver on 127.0.0.1 answering 200 at once:
 *
 * The service runs as its own process (`dist/main.js`, pinned to core 0 when
 * taskset is there), the clients and the receiver in this one (core 1).
 *
 * 1. event creates per second without any endpoint, then with one endpoint
 *    subscribed to everything (the outbox written in every write, the sender
 *    delivering alongside), alternated for --rounds rounds and ending without
 *    one: each round's loss compares its phase with the mean of the phases
 *    without on either side, so a machine that drifts (a neighbour's load,
 *    a growing table) does not show up as loss; the median round is reported;
 *    with the service's CPU per create, and the database server's when it
 *    runs on this machine (the outbox's INSERTs are its work);
 * 2. commit → delivery latency under that load: the receiver's arrival time
 *    minus the message's `timestamp` (taken in the write's transaction, just
 *    before COMMIT);
 * 3. delivery rate of a burst: daily series of ~730 occurrences each, one
 *    message per occurrence, from the first commit to the last arrival.
 *
 *   npm run bench:webhooks -- [--database-url mysql://…/calendar_bench_hooks] [--creates 600] [--rounds 3] [--warmup 400] [--connections 4] [--series 3] [--separate-sender] [--sender-after] [--no-pin] [--profile DIR]
 *
 * With --separate-sender the measured service only writes the outbox and a
 * second instance (on core 1, with the clients) sends it; commit → delivery
 * then includes that instance's poll interval (it is not woken by commits).
 * With --sender-after (implies --separate-sender) that instance runs only
 * between the phases: it starts once a phase's creates are in and stops when
 * their messages arrived, so the creates pay for the outbox alone, as with
 * senders on other machines than the writers (on this machine a sender
 * running beside them takes the core the clients and the database share).
 * Commit → delivery then measures the wait for the phase's end: not reported.
 *
 * Without --database-url it runs on a fresh SQLite file. A MySQL database
 * whose name does not contain "bench" is refused (the script empties it).
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { DateTime } from 'luxon';
import {
  hasTaskset,
  pinSelf,
  serviceReady,
  startServer,
  stopAll,
  stopServer,
} from './bench/processes';
import { cpuSeconds, ensureBuilt, freePort } from './shared/process-tools';
import { assertBenchDatabase } from './shared/bench-database';

const ROOT = resolve(__dirname, '..');
const SECRET = 'calendar-bench-secret-long-enough-for-hs256-0123456789';
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      creates: { type: 'string', default: '600' },
      rounds: { type: 'string', default: '3' },
      /** Creates before the first phase: the JIT and the pools warm up. */
      warmup: { type: 'string', default: '400' },
      connections: { type: 'string', default: '4' },
      series: { type: 'string', default: '3' },
      'no-pin': { type: 'boolean', default: false },
      /**
       * MySQL only: the measured service writes the outbox with its sender off
       * (WEBHOOKS_WORKER=false) and a second instance (core 1) sends: the cost
       * of the outbox alone, as in a deployment with a sending instance.
       */
      'separate-sender': { type: 'boolean', default: false },
      /** With --separate-sender: the sending instance runs only between the phases (see above). */
      'sender-after': { type: 'boolean', default: false },
      /** Writes a V8 CPU profile of the service into this folder (node --cpu-prof). */
      profile: { type: 'string' },
    },
  });
  const databaseUrl = values['database-url'] ?? '';
  assertBenchDatabase(databaseUrl);
  if (databaseUrl) await recreate(databaseUrl);

  // The service in its own process (pinned to core 0), the clients and the receiver here
  // (core 1), as `npm run bench` measures: what a create costs is the service's work alone.
  const entry = ensureBuilt(ROOT, log);
  const pin = !values['no-pin'] && hasTaskset();
  if (pin) pinSelf(1);
  const workDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const senderAfter = values['sender-after'];
  const separate = values['separate-sender'] || senderAfter;
  if (separate && !databaseUrl) throw new Error('--separate-sender needs --database-url (MySQL)');
  const serviceEnv = (port: number, worker: boolean) => ({
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    SQLITE_PATH: join(workDir, 'calendar.sqlite'),
    AUTH_JWT_SECRET: SECRET,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    PORT: String(port),
    WEBHOOKS_WORKER: String(worker),
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  });
  const port = await freePort();
  const service = await startServer({
    name: 'service',
    port,
    args: [
      ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values.profile)}`] : []),
      entry,
    ],
    env: serviceEnv(port, !separate),
    core: pin ? 0 : undefined,
    logFile: join(workDir, 'service.log'),
    ready: serviceReady,
  });
  const startSender = async () => {
    const senderPort = await freePort();
    return startServer({
      name: 'sender',
      port: senderPort,
      args: [entry],
      env: serviceEnv(senderPort, true),
      core: pin ? 1 : undefined,
      logFile: join(workDir, 'sender.log'),
      ready: serviceReady,
    });
  };
  if (separate && !senderAfter) await startSender();
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
  // Statements the database answered (MariaDB's global count: meaningful only when nothing
  // else uses the server), per create; NaN on SQLite.
  const status = databaseUrl
    ? await (await import('mysql2/promise')).createConnection({ uri: databaseUrl })
    : undefined;
  // The database server's own CPU per create, when it runs on this machine (MariaDB or MySQL):
  // the outbox's INSERTs cost the database work the service's CPU does not show.
  const serverPid =
    databaseUrl && ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(databaseUrl).hostname)
      ? localServerPid()
      : undefined;
  const databaseCpu = () => (serverPid === undefined ? NaN : (cpuSeconds(serverPid) ?? NaN));
  const statements = async () => {
    if (!status) return NaN;
    const [rows] = await status.query("SHOW GLOBAL STATUS LIKE 'Questions'");
    return Number((rows as Array<{ Value: string }>)[0].Value);
  };

  // Warm-up; then phases without an endpoint (none yet, or disabled) and with one enabled,
  // alternated, ending without (each event: event.created + category.updated). A phase
  // with waits for its deliveries, so their cost is not carried into the next phase.
  await createEvents(Number(values.warmup), connections);
  const rounds = Number(values.rounds);
  const phase = async () => {
    const cpuBefore = cpu();
    const databaseBefore = databaseCpu();
    const statementsBefore = await statements();
    const rate = await createEvents(creates, connections);
    return {
      rate,
      cpuPerCreate: ((cpu() - cpuBefore) * 1000) / creates,
      databaseCpuPerCreate: ((databaseCpu() - databaseBefore) * 1000) / creates,
      statementsBefore,
    };
  };
  let endpoint = 0;
  const withouts = [await phase()];
  const withs: Array<{
    rate: number;
    cpuPerCreate: number;
    databaseCpuPerCreate: number;
    delivered: number;
    statements: number;
  }> = [];
  for (let round = 0; round < rounds; round++) {
    if (endpoint === 0)
      endpoint = (await call('POST', '/webhooks', { url: hook, events: ['*'] })).id;
    else await call('PATCH', `/webhooks/${endpoint}`, { enabled: true });
    const cpuBefore = cpu();
    const measured = await phase();
    const sender = senderAfter ? await startSender() : undefined;
    await waitDelivered(await countDeliveries(endpoint));
    await stopServer(sender);
    // Until the last of their messages was delivered: the creates' whole cost with the outbox.
    withs.push({
      ...measured,
      delivered: ((cpu() - cpuBefore) * 1000) / creates,
      statements: ((await statements()) - measured.statementsBefore) / creates,
    });
    await call('PATCH', `/webhooks/${endpoint}`, { enabled: false });
    withouts.push(await phase());
  }
  const statementsWithout =
    ((await statements()) - withouts[withouts.length - 1].statementsBefore) / creates;
  await call('PATCH', `/webhooks/${endpoint}`, { enabled: true });
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const flanked = (r: number, key: 'rate' | 'cpuPerCreate') =>
    (withouts[r][key] + withouts[r + 1][key]) / 2;
  const losses = withs.map((w, r) => (w.rate / flanked(r, 'rate') - 1) * 100);
  const cpuCosts = withs.map((w, r) => (w.cpuPerCreate / flanked(r, 'cpuPerCreate') - 1) * 100);
  const list = (values: number[], digits = 1) => values.map((v) => v.toFixed(digits)).join(', ');
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

  // Burst: daily series, ~730 occurrences each (with --sender-after, the sender runs from here on).
  if (senderAfter) await startSender();
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
  await status?.end();
  receiver.close();
  console.log(
    `engine: ${databaseUrl ? 'mysql' : 'sqlite'}; service ${pin ? 'pinned to core 0, clients and receiver on core 1' : 'not pinned'}; ${senderAfter ? 'its sender off, a second instance sends between the phases (core 1)' : separate ? 'its sender off, a second instance sends (core 1)' : 'its own sender on'}; ${creates} event creates per phase over ${connections} connections; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log('| measure | figure |\n|---|---|');
  console.log(
    `| creates/s without an endpoint (${rounds + 1} phases; service CPU per create) | ${list(withouts.map((w) => w.rate))} (${list(
      withouts.map((w) => w.cpuPerCreate),
      2,
    )} ms) |`,
  );
  console.log(
    `| creates/s with one endpoint (outbox + sender; ${rounds} phases; service CPU per create) | ${list(withs.map((w) => w.rate))} (${list(
      withs.map((w) => w.cpuPerCreate),
      2,
    )} ms) |`,
  );
  console.log(
    `| create throughput lost with the endpoint, per round / median | ${list(losses)} % / **${median(losses).toFixed(1)} %** |`,
  );
  console.log(
    `| service CPU per create with the endpoint, more than without, per round / median; until all delivered (median) | ${list(cpuCosts)} % / **${median(cpuCosts).toFixed(1)} %**; ${median(withs.map((w) => w.delivered)).toFixed(2)} ms |`,
  );
  console.log(
    `| statements per create without / with the endpoint, until all delivered (global count: alone on the server; last phases) | ${statementsWithout.toFixed(1)} / ${withs[withs.length - 1].statements.toFixed(1)} |`,
  );
  if (serverPid !== undefined)
    console.log(
      `| database server CPU per create without / with the endpoint (phases; medians) | ${list(
        withouts.map((w) => w.databaseCpuPerCreate),
        2,
      )} / ${list(
        withs.map((w) => w.databaseCpuPerCreate),
        2,
      )} ms; **${median(withouts.map((w) => w.databaseCpuPerCreate)).toFixed(2)} / ${median(withs.map((w) => w.databaseCpuPerCreate)).toFixed(2)} ms** |`,
    );
  if (!senderAfter)
    console.log(
      `| commit → delivery under that load (${sorted.length} messages) | p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${sorted[sorted.length - 1]} ms |`,
    );
  if (burst > 0)
    console.log(
      `| burst: ${values.series} daily series written in ${burstWritten} ms, ${burst} messages delivered | ${(burst / burstSeconds).toFixed(0)} messages/s (first commit → last arrival ${burstSeconds.toFixed(2)} s) |`,
    );
}

/** The PID of a MariaDB or MySQL server on this machine, if one runs here. */
function localServerPid(): number | undefined {
  for (const name of ['mariadbd', 'mysqld']) {
    try {
      const pid = Number(execFileSync('pidof', ['-s', name], { encoding: 'utf8' }).trim());
      if (pid > 0) return pid;
    } catch {
      // not running under this name
    }
  }
  return undefined;
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
