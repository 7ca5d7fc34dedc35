/**
 * What metrics and traces cost: the built service five times on one seeded
 * database, with observability off, with metrics on (METRICS_TOKEN, scraped
 * every 5 s), with traces on as configured by default (OTEL_EXPORTER_OTLP_ENDPOINT
 * to a stand-in collector in this process that accepts OTLP/HTTP and discards
 * it; the default sampler), with every request traced
 * (OTEL_TRACES_SAMPLER=parentbased_always_on) and with none
 * (OTEL_TRACES_SAMPLER=always_off: the instrumentations' own cost), under the
 * same list load. Rounds rotate the order, so a busy machine weighs on each alike.
 * OTEL_* variables given to the bench reach the traced services (e.g.
 * OTEL_TRACES_SAMPLER_ARG, OTEL_BSP_MAX_EXPORT_BATCH_SIZE).
 *
 *   npm run bench:obs -- [--events 10000] [--path /events] [--connections 10]
 *                        [--duration 5] [--rounds 3] [--sqlite-path FILE]
 *                        [--database-url mysql://…]
 *
 * Without --database-url it seeds an embedded SQLite file once (default:
 * <tmp>/bench-obs-<events>.sqlite). Prints req/s, p50/p99 latency and the
 * server CPU per request of each mode, and each against off (all rounds, and
 * the median of each round's ratio), with the load average before and after.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { aggregate, RunResult, runLoad } from './bench/load';
import { sendRaw } from './bench/http';
import { serviceReady, Server, startServer, stopAll } from './bench/processes';
import { API } from './bench/request-sets';
import { benchDatabaseEnv } from './shared/bench-database';
import { ensureBuilt, freePort } from './shared/process-tools';

const ROOT = resolve(__dirname, '..');
const log = (line: string) => process.stderr.write(`${line}\n`);
const METRICS_TOKEN = 'bench-observability-metrics-token';
const MODES = ['off', 'metrics', 'traces', 'traces-all', 'traces-none'] as const;
type Mode = (typeof MODES)[number];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '10000' },
      path: { type: 'string', default: '/events' },
      connections: { type: 'string', default: '10' },
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      'sqlite-path': { type: 'string' },
      'database-url': { type: 'string' },
    },
  });
  const events = Number(values.events);
  const databaseUrl = values['database-url'] ?? '';
  const { env: dbEnv, sqlitePath } = benchDatabaseEnv({
    root: ROOT,
    name: 'bench-obs',
    events,
    databaseUrl,
    sqlitePath: values['sqlite-path'],
    log,
  });

  const collector = await startCollector();
  const entry = ensureBuilt(ROOT, log);
  const logs = mkdtempSync(join(tmpdir(), 'bench-obs-'));
  const traces = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`,
    OTEL_SERVICE_NAME: 'calendar-bench',
  };
  const modeEnv: Record<Mode, Record<string, string>> = {
    off: {},
    metrics: { METRICS_TOKEN },
    traces,
    'traces-all': { ...traces, OTEL_TRACES_SAMPLER: 'parentbased_always_on' },
    // The instrumentations in place, no span recorded: what sampling cannot take away.
    'traces-none': { ...traces, OTEL_TRACES_SAMPLER: 'always_off' },
  };
  const loadBefore = loadavg()[0];
  const servers = {} as Record<Mode, Server>;
  for (const mode of MODES) {
    const port = await freePort();
    servers[mode] = await startServer({
      name: mode,
      port,
      args: [entry],
      env: {
        ...process.env,
        ...dbEnv,
        ...modeEnv[mode],
        PORT: String(port),
        NODE_ENV: 'production',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_PER_MINUTE: '0',
        // A read-only load: one sender is enough, and it stays idle.
        WEBHOOKS_WORKER: 'false',
        DB_MIGRATIONS_RUN: mode === 'off' ? 'true' : 'false',
        AUTH_JWT_SECRET: 'calendar-bench-secret-long-enough-for-hs256-0123456789',
      },
      logFile: join(logs, `${mode}.log`),
      ready: serviceReady,
    });
  }
  const scraper = setInterval(() => {
    void sendRaw({
      port: servers.metrics.port,
      method: 'GET',
      path: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      timeoutMs: 5000,
    }).catch(() => undefined);
  }, 5000);
  try {
    const path = `${API}${values.path}`;
    const set = { key: 'list' as const, label: values.path, method: 'GET' as const, path };
    const load = (mode: Mode, seconds: number) =>
      runLoad({
        port: servers[mode].port,
        pid: servers[mode].pid,
        set,
        connections: Number(values.connections),
        seconds,
        token: '',
        tag: mode,
        counter: { n: 0 },
      });
    for (const mode of MODES) await load(mode, 2); // warm-up: JIT, caches, connections
    const runs = Object.fromEntries(MODES.map((mode) => [mode, []])) as unknown as Record<
      Mode,
      RunResult[]
    >;
    const rounds = Number(values.rounds);
    for (let round = 0; round < rounds; round++) {
      // Rotated order: each mode goes first, second and third in turn.
      const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]);
      for (const mode of order) {
        const run = await load(mode, Number(values.duration));
        if (run.errors > 0 || run.non2xx > 0) throw new Error(`${mode}: failed requests`);
        runs[mode].push(run);
        log(
          `round ${round + 1}/${rounds} ${mode}: ${(run.requests / run.seconds).toFixed(0)} req/s`,
        );
      }
    }
    const where = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : sqlitePath;
    const size = databaseUrl ? 'as seeded' : `${events.toLocaleString('en')} events`;
    console.log(
      `data: ${size} (${where}); GET ${values.path}; ${values.connections} connections; ` +
        `${rounds} rounds × ${values.duration} s per mode, order rotated; ` +
        `load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`,
    );
    console.log(
      `collector stand-in: ${collector.requests()} OTLP requests, ${collector.bytes().toLocaleString('en')} bytes`,
    );
    console.log(
      '| mode | req/s | vs off | median round vs off | p50 ms | p99 ms | server CPU ms/request | CPU vs off |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    const off = aggregate(runs.off);
    const percent = (ratio: number) => `${((ratio - 1) * 100).toFixed(1)} %`;
    for (const mode of MODES) {
      const a = aggregate(runs[mode]);
      // Each round's req/s against off's in the same round: less swayed by a load that comes and goes.
      const paired = median(runs[mode].map((run, i) => rate(run) / rate(runs.off[i])));
      console.log(
        `| ${mode} | ${a.rps.toFixed(0)} | ${mode === 'off' ? '' : percent(a.rps / off.rps)} | ` +
          `${mode === 'off' ? '' : percent(paired)} | ${a.p50.toFixed(2)} | ${a.p99.toFixed(2)} | ` +
          `${a.cpuMsPerRequest.toFixed(3)} | ${mode === 'off' ? '' : percent(a.cpuMsPerRequest / off.cpuMsPerRequest)} |`,
      );
    }
  } finally {
    clearInterval(scraper);
    await stopAll();
    collector.close();
  }
}

const rate = (run: RunResult) => run.requests / run.seconds;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Accepts OTLP/HTTP on /v1/traces and throws it away, counting what came. */
async function startCollector(): Promise<{
  port: number;
  requests: () => number;
  bytes: () => number;
  close: () => void;
}> {
  let requests = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    bytes: () => bytes,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

main().catch((error: unknown) => {
  log(`bench:obs failed: ${error instanceof Error ? error.message : String(error)}`);
  void stopAll().finally(() => process.exit(1));
});
