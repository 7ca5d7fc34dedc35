/**
 * What metrics and traces cost: the built service started once per variant on
 * one seeded database, under the same list load, in many short rounds. Each
 * round runs every variant once, in a new shuffled order (each measured run
 * follows an unmeasured half second of the same load), so each runs as often
 * and idles as long and what the machine does weighs on each alike; the
 * variant's req/s and server CPU per request are divided by those of `off`
 * of its build in the same round, and the median of these ratios over the rounds,
 * with its 95 % confidence interval, is what the report gives and what the
 * targets are decided on (met / missed / undecided).
 *
 * Variants: `off`; `off-again`, a second process of the same service (what no
 * difference looks like: its interval should hold 0); `metrics`
 * (METRICS_TOKEN, scraped every 5 s); `traces` as configured by default
 * (OTEL_EXPORTER_OTLP_ENDPOINT to a stand-in collector in this process that
 * accepts OTLP/HTTP and discards it; the default sampler); `traces-all`
 * (OTEL_TRACES_SAMPLER=parentbased_always_on) and `traces-none`
 * (OTEL_TRACES_SAMPLER=always_off: the instrumentations' own cost). OTEL_*
 * variables given to the bench reach the traced services.
 *
 *   npm run bench:obs -- [--events 10000] [--path /events] [--connections 10]
 *                        [--rate N] [--duration 2] [--rounds 20]
 *                        [--variants off,metrics,…] [--before-entry DIR/main.js]
 *                        [--no-pin] [--profile DIR]
 *                        [--sqlite-path FILE] [--database-url mysql://…]
 *   npm run bench:obs -- --instructions [--processes 2] [--warmup 1500]
 *                        [--requests 200] [--real-rps 1000] [--idle-seconds 20] [--parallel 2] [--variants …]
 *
 * --instructions counts instructions per list request under callgrind instead
 * of timing (scripts/bench/obs-instructions.ts): what a loaded machine cannot blur.
 * --rate N sends N requests a second in all (open loop) instead of as fast as
 * answered: throughput is then the same and CPU per request tells the cost.
 * --before-entry runs every variant a second time on another build (e.g. a
 * copy of dist/ from before a change, beside node_modules), in the same
 * rounds, each against its own build's `off`. Servers are pinned to core 0
 * and this process (the load generator) to core 1 unless --no-pin.
 * --profile DIR writes each server's V8 CPU profile there when it stops.
 * Without --database-url it seeds an embedded SQLite file once (default:
 * <tmp>/bench-obs-<events>.sqlite).
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { aggregate, RunResult, runLoad } from './bench/load';
import { sendRaw } from './bench/http';
import { hasTaskset, pinSelf, serviceReady, Server, startServer, stopAll } from './bench/processes';
import { API } from './bench/request-sets';
import { lossVerdict, median, medianInterval, percentOf, quantile } from './bench/round-stats';
import { benchDatabaseEnv } from './shared/bench-database';
import { mulberry32 } from './seed/prng';
import { ensureBuilt, freePort } from './shared/process-tools';
import { measureInstructions, printInstructions } from './bench/obs-instructions';

const ROOT = resolve(__dirname, '..');
const log = (line: string) => process.stderr.write(`${line}\n`);
const METRICS_TOKEN = 'bench-observability-metrics-token';
const MODES = ['off', 'off-again', 'metrics', 'traces', 'traces-all', 'traces-none'] as const;
type Mode = (typeof MODES)[number];
/** Issue 29's targets: the share of list throughput each may lose. */
const TARGETS: Partial<Record<Mode, number>> = { metrics: 0.03, traces: 0.1 };
/** An unmeasured run before each measured one. */
const WARM_SECONDS = 0.5;

interface Variant {
  label: string;
  mode: Mode;
  build: 'current' | 'before';
  server?: Server;
  runs: RunResult[];
  /** This variant over its build's off, one per round. */
  pairs: Array<{ rps: number; cpu: number }>;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '10000' },
      path: { type: 'string', default: '/events' },
      connections: { type: 'string' },
      rate: { type: 'string' },
      duration: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '20' },
      variants: { type: 'string', default: MODES.join(',') },
      'before-entry': { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      profile: { type: 'string' },
      'sqlite-path': { type: 'string' },
      'database-url': { type: 'string' },
      instructions: { type: 'boolean', default: false },
      processes: { type: 'string', default: '2' },
      requests: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '1500' },
      'real-rps': { type: 'string', default: '1000' },
      'idle-seconds': { type: 'string', default: '20' },
      parallel: { type: 'string', default: '2' },
    },
  });
  const events = Number(values.events);
  const rounds = Number(values.rounds);
  const seconds = Number(values.duration);
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  const modes = parseModes(values.variants);
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
  const entries = {
    current: ensureBuilt(ROOT, log),
    before: values['before-entry'] ? resolve(values['before-entry']) : undefined,
  };
  const logs = mkdtempSync(join(tmpdir(), 'bench-obs-'));
  const pinned = !values['no-pin'] && hasTaskset() && cpus().length >= 2;
  const traces = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`,
    OTEL_SERVICE_NAME: 'calendar-bench',
  };
  const modeEnv: Record<Mode, Record<string, string>> = {
    off: {},
    'off-again': {},
    metrics: { METRICS_TOKEN },
    traces,
    'traces-all': { ...traces, OTEL_TRACES_SAMPLER: 'parentbased_always_on' },
    // The instrumentations in place, no span recorded: what sampling cannot take away.
    'traces-none': { ...traces, OTEL_TRACES_SAMPLER: 'always_off' },
  };
  const serviceEnv = {
    ...(process.env as Record<string, string>),
    ...dbEnv,
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    // A read-only load: one sender is enough, and it stays idle.
    WEBHOOKS_WORKER: 'false',
    AUTH_JWT_SECRET: 'calendar-bench-secret-long-enough-for-hs256-0123456789',
  };
  if (values.instructions) {
    try {
      await instructionsMode(
        values,
        modes,
        modeEnv,
        serviceEnv,
        entries.current,
        events,
        collector,
      );
    } finally {
      collector.close();
    }
    return;
  }
  const variants: Variant[] = [
    ...modes.map((mode): Variant => ({ label: mode, mode, build: 'current', runs: [], pairs: [] })),
    ...(entries.before
      ? modes.map((mode): Variant => ({
          label: `before: ${mode}`,
          mode,
          build: 'before',
          runs: [],
          pairs: [],
        }))
      : []),
  ];
  const loadBefore = loadavg()[0];
  let migrated = false;
  for (const variant of variants) {
    const port = await freePort();
    const name = variant.label.replace(/[^a-z-]+/g, '-');
    const profileDir = values.profile ? resolve(values.profile, name) : undefined;
    if (profileDir) mkdirSync(profileDir, { recursive: true });
    variant.server = await startServer({
      name: variant.label,
      port,
      args: [
        ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
        variant.build === 'before' ? (entries.before as string) : entries.current,
      ],
      core: pinned ? 0 : undefined,
      env: {
        ...serviceEnv,
        ...modeEnv[variant.mode],
        PORT: String(port),
        DB_MIGRATIONS_RUN: migrated ? 'false' : 'true',
      },
      logFile: join(logs, `${name}.log`),
      ready: serviceReady,
    });
    migrated = true;
  }
  if (pinned) pinSelf(1);
  const compared = variants.filter((variant) => variant.mode !== 'off');
  const scraper = setInterval(() => {
    for (const { mode, server } of variants) {
      if (mode !== 'metrics' || !server) continue;
      void sendRaw({
        port: server.port,
        method: 'GET',
        path: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        timeoutMs: 5000,
      }).catch(() => undefined);
    }
  }, 5000);
  const loads: number[] = [];
  try {
    const path = `${API}${values.path}`;
    const set = { key: 'list' as const, label: values.path, method: 'GET' as const, path };
    const load = (server: Server, duration: number) =>
      runLoad({
        port: server.port,
        pid: server.pid,
        set,
        connections: Number(values.connections ?? '10'),
        seconds: duration,
        rate,
        token: '',
        tag: server.name,
        counter: { n: 0 },
      });
    // Warm-up: JIT, caches, connections.
    for (const variant of variants) await load(variant.server as Server, 3);
    const random = mulberry32(29); // the same shuffles on every run of the bench
    for (let round = 0; round < rounds; round++) {
      loads.push(loadavg()[0]);
      const line: string[] = [];
      // Every variant once a round, in a new order: each runs as often and idles as long
      // (paired back to back with off, which then ran in every pair, the off-again control
      // showed +27 to +73 % CPU per request: a process under constant load is the faster one).
      for (const variant of shuffled(variants, random)) {
        await load(variant.server as Server, WARM_SECONDS); // unmeasured: none starts from idle
        const run = await load(variant.server as Server, seconds);
        if (run.errors > 0 || run.non2xx > 0) throw new Error(`${variant.label}: failed requests`);
        variant.runs.push(run);
      }
      for (const variant of compared) {
        const ofVariant = variant.runs[round];
        const ofReference = referenceOf(variant, variants).runs[round];
        variant.pairs.push({
          rps: rps(ofVariant) / rps(ofReference),
          cpu: cpuPerRequest(ofVariant) / cpuPerRequest(ofReference),
        });
        line.push(`${variant.label} ${percentOf(rps(ofVariant) / rps(ofReference), 0)}`);
      }
      log(
        `round ${round + 1}/${rounds} (load ${loads[round].toFixed(1)}): req/s vs off ${line.join(', ')}`,
      );
    }
    loads.push(loadavg()[0]);
    const where = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : sqlitePath;
    const size = databaseUrl ? 'as seeded' : `${events.toLocaleString('en')} events`;
    console.log(
      `data: ${size} (${where}); GET ${values.path}; ${values.connections ?? '10'} connections, ` +
        `${rate === undefined ? 'each sending when answered' : `${rate} requests/s in all`}; ` +
        `${rounds} rounds × ${seconds} s per variant, order shuffled per round; ` +
        `${pinned ? 'servers on core 0, load generator on core 1' : 'not pinned'}; Node ${process.version}`,
    );
    console.log(
      `load average (1 min): ${loadBefore.toFixed(1)} at start, ${loads.at(-1)?.toFixed(1)} at end, ` +
        `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} over the rounds; ` +
        `collector stand-in: ${collector.requests()} OTLP requests, ${collector.bytes().toLocaleString('en')} bytes`,
    );
    printTable(variants);
  } finally {
    clearInterval(scraper);
    await stopAll();
    collector.close();
  }
}

/**
 * One row per variant: its rounds' median and interquartile range, and the
 * median of its per-round ratios to `off` of its build with their 95 %
 * interval; `capacity` is off's CPU per request over the variant's (what
 * throughput would be when the service's core is the limit).
 */
function printTable(variants: Variant[]): void {
  console.log(
    '| variant | req/s, median (IQR) | req/s vs off, median round [95 % CI] | ' +
      'CPU µs/request, median (IQR) | CPU/request vs off [95 % CI] | p50 / p99 ms | target (throughput) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---|');
  const spread = (values: number[], digits: number) =>
    `${median(values).toFixed(digits)} (${quantile(values, 0.25).toFixed(digits)}–${quantile(values, 0.75).toFixed(digits)})`;
  const ratio = (values: number[]) => {
    const [low, high] = medianInterval(values);
    return `${percentOf(median(values))} [${percentOf(low)}, ${percentOf(high)}]`;
  };
  for (const variant of variants) {
    const perRequest = variant.runs.map(cpuPerRequest);
    const whole = aggregate(variant.runs);
    let versus = ['', ''];
    let target = '';
    if (variant.mode !== 'off') {
      const throughput = variant.pairs.map((pair) => pair.rps);
      const cpu = variant.pairs.map((pair) => pair.cpu);
      versus = [ratio(throughput), ratio(cpu)];
      const limit = TARGETS[variant.mode];
      if (limit !== undefined) {
        target = `≤ ${limit * 100} % loss: ${lossVerdict(medianInterval(throughput), limit)}`;
        // Where the core, not the load, bounds throughput: off's CPU per request over this one's.
        const capacity = cpu.map((value) => 1 / value);
        target += `; by CPU: ${lossVerdict(medianInterval(capacity), limit)}`;
      }
    }
    console.log(
      `| ${variant.label} | ${spread(variant.runs.map(rps), 0)} | ${versus[0]} | ` +
        `${spread(perRequest, 0)} | ${versus[1]} | ` +
        `${whole.p50.toFixed(2)} / ${whole.p99.toFixed(2)} | ${target} |`,
    );
  }
}

/** --instructions: instructions per request under callgrind (scripts/bench/obs-instructions.ts). */
async function instructionsMode(
  values: Record<string, string | boolean | undefined>,
  modes: Mode[],
  modeEnv: Record<Mode, Record<string, string>>,
  serviceEnv: Record<string, string>,
  entry: string,
  events: number,
  collector: { requests: () => number },
): Promise<void> {
  const outDir = mkdtempSync(join(tmpdir(), 'bench-obs-callgrind-'));
  // A real deployment's scrape: every 15 s, at this many list requests a second.
  const scrapeEvery = Number(values['real-rps']) * 15;
  const options = {
    entry,
    variants: modes.map((mode) => ({ mode, env: modeEnv[mode] })),
    // Migrations once, here, not inside valgrind.
    baseEnv: { ...serviceEnv, DB_MIGRATIONS_RUN: 'false' },
    path: `${API}${String(values.path)}`,
    processes: Number(values.processes),
    warmup: Number(values.warmup),
    requests: Number(values.requests),
    // One at a time by default: a server ~50× slower resets a connection whose request
    // waited past Node's 60 s headersTimeout behind the others.
    connections: Number(values.connections ?? '1'),
    scrapeEvery,
    scrapes: 5,
    idleSeconds: Number(values['idle-seconds']),
    realRps: Number(values['real-rps']),
    metricsToken: METRICS_TOKEN,
    targets: TARGETS as Record<string, number>,
    outDir,
    parallel: Number(values.parallel),
    log,
  };
  const loadBefore = loadavg();
  const started = new Date();
  const figures = await measureInstructions(options);
  console.log(
    `data: ${events.toLocaleString('en')} events; GET ${String(values.path)}; ` +
      `${options.processes} fresh processes per variant under valgrind --tool=callgrind, ` +
      `${options.warmup} warm-up then ${options.requests} counted requests at ${options.connections} connections; ` +
      `a /metrics scrape counted once per ${scrapeEvery} requests (${String(values['real-rps'])} req/s × 15 s); ` +
      `timer work measured over ${String(values['idle-seconds'])} idle seconds, taken out of the window and shared as one real second over ${String(values['real-rps'])} requests; ` +
      `Node ${process.version}; ${started.toISOString()}; load ${loadBefore.map((l) => l.toFixed(1)).join(' ')} → ` +
      `${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (counts do not depend on it); ` +
      `collector stand-in: ${collector.requests()} OTLP requests; dumps in ${outDir}`,
  );
  printInstructions(figures, options);
}

/** The `off` of a variant's build: its reference in every pair. */
function referenceOf(variant: Variant, variants: Variant[]): Variant {
  const off = variants.find((v) => v.build === variant.build && v.mode === 'off');
  if (!off) throw new Error(`no off for ${variant.label}`);
  return off;
}

const rps = (run: RunResult) => run.requests / run.seconds;
const cpuPerRequest = (run: RunResult) => (run.cpuSeconds * 1e6) / run.requests;

function parseModes(list: string): Mode[] {
  const given = list.split(',').map((name) => name.trim());
  const unknown = given.filter((name) => !(MODES as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`unknown variants: ${unknown.join(', ')} (${MODES.join(', ')})`);
  // `off` is every ratio's reference.
  return MODES.filter((mode) => mode === 'off' || given.includes(mode));
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
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
