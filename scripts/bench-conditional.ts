/**
 * What a conditional read saves (issue 13, docs/api.md §11): the default
 * event list answered 200 against the same request with its ETag in
 * If-None-Match (304), one request at a time, on a seeded database.
 *
 *   npm run bench:conditional -- [--events 10000] [--requests 300] [--rounds 3]
 *                                [--path /events] [--sqlite-path FILE] [--database-url mysql://…]
 *
 * Without --database-url it seeds an embedded SQLite file once (default:
 * <tmp>/bench-conditional-<events>.sqlite) with `npm run seed`. It reports
 * the p50 latency and the server's CPU time per request (utime + stime of
 * the service process from /proc, so Linux only), rounds alternating 200 and 304.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile } from './bench/load';
import { serviceReady, startServer, stopAll, stopServer } from './bench/processes';
import { API } from './bench/request-sets';
import { benchDatabaseEnv } from './shared/bench-database';
import { ensureBuilt, freePort } from './shared/process-tools';

const ROOT = resolve(__dirname, '..');
const log = (line: string) => process.stderr.write(`${line}\n`);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '10000' },
      requests: { type: 'string', default: '300' },
      rounds: { type: 'string', default: '3' },
      path: { type: 'string', default: '/events' },
      'sqlite-path': { type: 'string' },
      'database-url': { type: 'string' },
    },
  });
  const events = Number(values.events);
  const databaseUrl = values['database-url'] ?? '';
  const { env: dbEnv, sqlitePath } = benchDatabaseEnv({
    root: ROOT,
    name: 'bench-conditional',
    events,
    databaseUrl,
    sqlitePath: values['sqlite-path'],
    log,
  });

  const entry = ensureBuilt(ROOT, log);
  const port = await freePort();
  const service = await startServer({
    name: 'service',
    port,
    args: [entry],
    env: {
      ...process.env,
      ...dbEnv,
      PORT: String(port),
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      AUTH_JWT_SECRET: 'calendar-bench-secret-long-enough-for-hs256-0123456789',
    },
    logFile: join(mkdtempSync(join(tmpdir(), 'bench-conditional-')), 'service.log'),
    ready: serviceReady,
  });
  try {
    const path = `${API}${values.path}`;
    const first = await get(port, path, {});
    if (first.status !== 200 || !first.etag) throw new Error(`${path}: ${first.status}, no ETag`);
    const conditional = { 'if-none-match': first.etag };
    // Warm-up: JIT, caches, connections.
    for (let i = 0; i < 50; i++) {
      await get(port, path, {});
      await get(port, path, conditional);
    }
    const requests = Number(values.requests);
    const results = { 200: [] as Measured[], 304: [] as Measured[] };
    for (let round = 0; round < Number(values.rounds); round++) {
      results[200].push(await measure(port, service.pid, path, {}, 200, requests));
      results[304].push(await measure(port, service.pid, path, conditional, 304, requests));
    }
    const summary = (status: 200 | 304) => {
      const latencies = Float64Array.from(results[status].flatMap((r) => r.latencies)).sort();
      const cpu = results[status].reduce((sum, r) => sum + r.cpuMs, 0);
      const count = results[status].reduce((sum, r) => sum + r.latencies.length, 0);
      return { p50: percentile(latencies, 50), cpuPerRequest: cpu / count };
    };
    const ok = summary(200);
    const notModified = summary(304);
    const where = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : sqlitePath;
    // --events only sizes the SQLite file this script seeds; a given database is as it was seeded.
    const size = databaseUrl ? 'as seeded' : `${events.toLocaleString('en')} events`;
    console.log(`data: ${size} (${where}); GET ${values.path}`);
    console.log(`body: ${first.bytes.toLocaleString('en')} bytes`);
    console.log(`| answer | p50 ms | server CPU ms/request |`);
    console.log(`|---|---:|---:|`);
    console.log(`| 200 | ${ok.p50.toFixed(2)} | ${ok.cpuPerRequest.toFixed(2)} |`);
    console.log(
      `| 304 | ${notModified.p50.toFixed(2)} | ${notModified.cpuPerRequest.toFixed(2)} |`,
    );
    console.log(
      `304/200: latency ${(notModified.p50 / ok.p50).toFixed(2)}, CPU ${(notModified.cpuPerRequest / ok.cpuPerRequest).toFixed(2)} ` +
        `(${Number(values.rounds)} rounds × ${requests} requests each, one at a time)`,
    );
  } finally {
    await stopServer(service);
  }
}

interface Measured {
  latencies: number[];
  cpuMs: number;
}

async function measure(
  port: number,
  pid: number,
  path: string,
  headers: Record<string, string>,
  expected: number,
  count: number,
): Promise<Measured> {
  const latencies: number[] = [];
  const cpuBefore = cpuMsOf(pid);
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    const answer = await get(port, path, headers);
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (answer.status !== expected) throw new Error(`${path}: ${answer.status}, not ${expected}`);
  }
  return { latencies, cpuMs: cpuMsOf(pid) - cpuBefore };
}

/** utime + stime of a process in milliseconds (Linux clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function get(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; etag?: string; bytes: number }> {
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () =>
        resolvePromise({ status: res.statusCode ?? 0, etag: res.headers.etag, bytes }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

main()
  .catch((error: unknown) => {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  })
  .finally(() => void stopAll());
