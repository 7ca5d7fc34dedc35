/**
 * Benchmark: the built service (dist/main.js) against two reference servers
 * on the same seeded MariaDB/MySQL database, both plain node:http + mysql2
 * with the service's own pure mappers from dist/ and never part of the
 * service: the same-SQL baseline (scripts/bench/baseline.ts: the service's
 * statements) and the minimal raw server (scripts/bench/minimal.ts: fewest
 * round trips, linked records cached per data version; reads only).
 *
 *   npm run bench -- [--database-url mysql://…] [--duration 5] [--rounds 3]
 *                    [--connections 1,10] [--sets list,month,page200,search,id,slug,create]
 *                    [--warmup 2] [--warmup-max 60] [--scaling [--sizes 1k,10k,100k,1m]] [--smoke]
 *                    [--no-pin] [--json FILE]
 *
 * Seed the database first (`npm run seed -- --events 100000 …`). The bench
 * builds dist/ when it is missing or older than src/, starts the three servers
 * (pinned to core 0; the load generator, this process, to core 1), checks
 * that both references answer every request set they serve with the
 * service's status, list headers and JSON bytes, warms each server up on each
 * set until its CPU per request settles (`--warmup` to `--warmup-max` seconds:
 * bench/warm-up.ts), then measures each
 * set and connection count over several rounds, rotating which server goes
 * first. Events it creates are
 * removed again. `--scaling` also measures the default list and page 200 on
 * calendar_bench_1k … _1m (seeded when missing or of the wrong size).
 * `--smoke`: one round of 1 s on a few sets, for CI.
 *
 * Exit code 1 when the answers differ, or a measured request failed.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { Comparison, compareServers } from './bench/compare';
import { ensureBuilt, freePort } from './shared/process-tools';
import { benchSettings, BenchSettings, serviceEnv, settingsEnv } from './shared/service-env';
import { aggregate, Aggregate, RunResult, runLoad } from './bench/load';
import { DEFAULT_WARM_UP, describeWarmUp, warmUp, type WarmUp } from './bench/warm-up';
import {
  baselineReady,
  hasTaskset,
  pinSelf,
  Server,
  serviceReady,
  startServer,
  stopAll,
  stopServer,
  transpileReferences,
} from './bench/processes';
import {
  fixed,
  ratioTable,
  resultTable,
  ResultRow,
  ScalingRow,
  scalingTable,
  table,
} from './bench/report';
import {
  BENCH_AUTHOR_ID,
  cleanupCreated,
  discoverBenchData,
  RequestSet,
  requestSets,
  SET_KEYS,
  SetKey,
} from './bench/request-sets';

const ROOT = resolve(__dirname, '..');
/** The sizes of --scaling: database calendar_bench_<name>. */
const SCALING_SIZES: Record<string, number> = {
  '1k': 1_000,
  '10k': 10_000,
  '100k': 100_000,
  '1m': 1_000_000,
};
const SMOKE_SETS: SetKey[] = ['list', 'page200', 'id', 'create'];
/** What the minimal raw server answers (it does not write). */
export const MINIMAL_SETS: SetKey[] = ['list', 'month', 'page200', 'search', 'id', 'slug'];

type ServerKey = 'ours' | 'baseline' | 'minimal';
type Reference = 'baseline' | 'minimal';

export interface BenchOptions {
  databaseUrl: string;
  /** Seconds per measured run. */
  duration: number;
  rounds: number;
  connections: number[];
  sets: SetKey[];
  /** Seconds of warm-up per set and server at least; it goes on until CPU per request settles (bench/warm-up.ts). */
  warmup: number;
  /** Seconds of warm-up per set and server at most. */
  warmupMax: number;
  scaling: boolean;
  sizes: string[];
  smoke: boolean;
  pin: boolean;
  json?: string;
}

export interface BenchReport {
  machine: Record<string, string>;
  dataSizes: Record<string, number>;
  /** The service against each reference, set by set (the minimal server: reads only). */
  comparisons: Array<{
    set: SetKey;
    reference: Reference;
    ok: boolean;
    status: number;
    bytes: number;
    diff?: string;
  }>;
  equal: boolean;
  rows: Array<{
    set: SetKey;
    connections: number;
    ours: Aggregate;
    baseline: Aggregate;
    /** Absent for the sets the minimal server does not answer (create). */
    minimal?: Aggregate;
  }>;
  ratioTable?: string;
  table?: string;
  scaling?: Array<{
    size: string;
    events: number;
    set: SetKey;
    ours: Aggregate;
    baseline: Aggregate;
    minimal: Aggregate;
  }>;
  scalingTable?: string;
  /** Each server's warm-up per set: how long it took to settle. */
  warmUps: Array<{ set: SetKey; server: ServerKey } & WarmUp>;
  errors: number;
  non2xx: number;
  created: number;
}

class UsageError extends Error {}

function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'database-url': { type: 'string' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string' },
      sets: { type: 'string' },
      warmup: { type: 'string' },
      'warmup-max': { type: 'string' },
      scaling: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'no-pin': { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    console.log(
      'usage: npm run bench -- [--database-url URL] [--duration S] [--rounds N] [--connections 1,10]\n' +
        `       [--sets ${SET_KEYS.join(',')}] [--warmup S] [--scaling [--sizes ${Object.keys(SCALING_SIZES).join(',')}]]\n` +
        '       [--warmup-max S] [--smoke] [--no-pin] [--json FILE]',
    );
    process.exit(0);
  }
  const smoke = values.smoke;
  const number = (name: string, value: string | undefined, fallback: number, integer: boolean) => {
    if (value === undefined) return fallback;
    const n = Number(value.replace(/s$/, ''));
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
      throw new UsageError(
        `--${name} must be a positive ${integer ? 'integer' : 'number'}, not "${value}"`,
      );
    return n;
  };
  const list = (name: string, value: string | undefined) =>
    value
      ?.split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL ?? '';
  if (!/^(mysql|mariadb):\/\//.test(databaseUrl))
    throw new UsageError(
      '--database-url (or DATABASE_URL) must name a MySQL/MariaDB database: mysql://user:pass@host:port/name',
    );
  const sets = (list('sets', values.sets) ?? (smoke ? SMOKE_SETS : SET_KEYS)) as SetKey[];
  for (const set of sets)
    if (!SET_KEYS.includes(set))
      throw new UsageError(`unknown set "${set}" (${SET_KEYS.join(', ')})`);
  const connections = (list('connections', values.connections) ?? ['1', '10']).map((c) =>
    number('connections', c, 1, true),
  );
  const sizes = list('sizes', values.sizes) ?? Object.keys(SCALING_SIZES);
  for (const size of sizes)
    if (!(size in SCALING_SIZES))
      throw new UsageError(`unknown size "${size}" (${Object.keys(SCALING_SIZES).join(', ')})`);
  return {
    databaseUrl,
    duration: number('duration', values.duration, smoke ? 1 : 5, false),
    rounds: number('rounds', values.rounds, smoke ? 1 : 3, true),
    connections,
    sets,
    warmup: values.warmup === '0' ? 0 : number('warmup', values.warmup, smoke ? 0.5 : 2, false),
    warmupMax: number(
      'warmup-max',
      values['warmup-max'],
      smoke ? 0.5 : DEFAULT_WARM_UP.maxSeconds,
      false,
    ),
    scaling: values.scaling,
    sizes,
    smoke,
    pin: !values['no-pin'],
    json: values.json,
  };
}

/* ---- build, machine, data ---- */

type Row = RowDataPacket & Record<string, unknown>;

export async function connect(url: string): Promise<Connection> {
  const { createConnection } = await import('mysql2/promise');
  return createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: false });
}

async function count(db: Connection, table: string): Promise<number> {
  const [rows] = await db.query<Row[]>(`SELECT COUNT(*) AS n FROM \`${table}\``);
  return Number(rows[0].n);
}

const SIZE_TABLES = [
  'events',
  'event_translations',
  'event_terms',
  'event_organizers',
  'venues',
  'organizers',
  'terms',
];

async function dataSizes(db: Connection): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const name of SIZE_TABLES) sizes[name] = await count(db, name);
  return sizes;
}

async function machine(db: Connection, pinned: boolean): Promise<Record<string, string>> {
  const [[version]] = await db.query<Row[]>('SELECT VERSION() AS v');
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: String(cpu.length),
    node: process.version,
    database: String(version.v),
    pinning: pinned ? 'servers on core 0, load generator on core 1 (taskset)' : 'none',
  };
}

function withDatabase(url: string, name: string): string {
  const next = new URL(url);
  next.pathname = `/${name}`;
  return next.toString();
}

function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/* ---- servers ---- */

interface Pair {
  ours: Server;
  baseline: Server;
  minimal: Server;
}

interface Files {
  entry: string;
  baseline: string;
  minimal: string;
  logDir: string;
}

/** The service and the two reference servers, on the same database and settings. */
async function startPair(
  databaseUrl: string,
  settings: BenchSettings,
  files: Files,
  core: number | undefined,
  tag: string,
): Promise<Pair> {
  const common = serviceEnv(settings.secret, {
    DATABASE_URL: databaseUrl,
    ...settingsEnv(settings),
  });
  const oursPort = await freePort();
  const ours = await startServer({
    name: 'service',
    port: oursPort,
    args: [files.entry],
    env: { ...common, PORT: String(oursPort) },
    core,
    logFile: join(files.logDir, `service-${tag}.log`),
    ready: serviceReady,
  });
  const references: Server[] = [];
  try {
    for (const name of ['baseline', 'minimal'] as const) {
      const port = await freePort();
      references.push(
        await startServer({
          name,
          port,
          args: [files[name]],
          env: { ...common, PORT: String(port), BASELINE_CODE_ROOT: join(ROOT, 'dist') },
          core,
          logFile: join(files.logDir, `${name}-${tag}.log`),
          ready: baselineReady,
        }),
      );
    }
    return { ours, baseline: references[0], minimal: references[1] };
  } catch (error) {
    await Promise.all([ours, ...references].map((server) => stopServer(server)));
    throw error;
  }
}

async function stopPair(pair: Pair | undefined): Promise<void> {
  if (!pair) return;
  await Promise.all([stopServer(pair.ours), stopServer(pair.baseline), stopServer(pair.minimal)]);
}

/** An editor (sub BENCH_AUTHOR_ID) signed with the servers' secret: its creates are the bench's. */
export function editorToken(secret: string): Promise<string> {
  return new SignJWT({ role: 'editor' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(BENCH_AUTHOR_ID))
    .setIssuedAt()
    .setExpirationTime('12h')
    .sign(new TextEncoder().encode(secret));
}

/* ---- measuring ---- */

interface Measure {
  pair: Pair;
  token: string;
  counter: { n: number };
  db: Connection;
}

const SERVERS: ServerKey[] = ['ours', 'baseline', 'minimal'];
/** The tags of the create bodies: of the same length, so all servers parse bodies of the same size. */
const TAGS: Record<ServerKey, string> = { ours: 'ours', baseline: 'base', minimal: 'mini' };

/** The servers that answer `set` (the minimal server: reads only). */
function serversOf(set: RequestSet): ServerKey[] {
  return SERVERS.filter((name) => name !== 'minimal' || MINIMAL_SETS.includes(set.key));
}

/** One run of `set` against server `name`. */
function loadOn(
  m: Measure,
  name: ServerKey,
  set: RequestSet,
  connections: number,
  seconds: number,
): Promise<RunResult> {
  const server = m.pair[name];
  return runLoad({
    port: server.port,
    pid: server.pid,
    set,
    connections,
    seconds,
    token: m.token,
    tag: TAGS[name],
    counter: m.counter,
  });
}

/**
 * One run of the set per server that answers it, the servers in rotated
 * order (`turn` 0 starts with the service, 1 with the baseline, …).
 */
async function measure(
  m: Measure,
  set: RequestSet,
  connections: number,
  seconds: number,
  turn: number,
): Promise<{ ours: RunResult; baseline: RunResult; minimal?: RunResult }> {
  const names = serversOf(set);
  const order = names.map((_, i) => names[(i + turn) % names.length]);
  const results: Partial<Record<ServerKey, RunResult>> = {};
  for (const name of order) results[name] = await loadOn(m, name, set, connections, seconds);
  return results as { ours: RunResult; baseline: RunResult; minimal?: RunResult };
}

/** Each server that answers `set`, warmed up on it until its CPU per request settles. */
async function warmUpServers(
  m: Measure,
  set: RequestSet,
  connections: number,
  options: Pick<BenchOptions, 'warmup' | 'warmupMax' | 'smoke'>,
): Promise<Array<{ set: SetKey; server: ServerKey } & WarmUp>> {
  const warmed: Array<{ set: SetKey; server: ServerKey } & WarmUp> = [];
  for (const name of serversOf(set)) {
    const load = (seconds: number) => loadOn(m, name, set, connections, seconds);
    const result = await warmUp(load, {
      ...DEFAULT_WARM_UP,
      minSeconds: options.warmup,
      maxSeconds: options.warmupMax,
      sliceSeconds: options.smoke ? options.warmup : DEFAULT_WARM_UP.sliceSeconds,
    });
    warmed.push({ set: set.key, server: name, ...result });
  }
  return warmed;
}

/** The service against the baseline on every set, then against the minimal server on its sets. */
async function verify(
  sets: RequestSet[],
  pair: Pair,
  token: string,
  db: Connection,
  log: (line: string) => void,
): Promise<Array<Comparison & { reference: Reference }>> {
  const all: Array<Comparison & { reference: Reference }> = [];
  for (const reference of ['baseline', 'minimal'] as const) {
    const comparisons = await compareServers(
      reference === 'minimal' ? sets.filter((set) => MINIMAL_SETS.includes(set.key)) : sets,
      { name: 'service', port: pair.ours.port },
      { name: reference, port: pair[reference].port },
      token,
      async () => void (await cleanupCreated(db)),
    );
    await cleanupCreated(db);
    for (const c of comparisons) {
      log(
        `  ${c.ok ? 'same' : 'DIFFERENT'}  ${reference.padEnd(8)} ${c.set.key.padEnd(8)} ${c.set.method} ${c.set.path}  (${c.status}, ${c.bytes} bytes)`,
      );
      if (!c.ok) log(`    ${(c.diff ?? '').split('\n').join('\n    ')}`);
      all.push({ ...c, reference });
    }
  }
  return all;
}

/** Seeds calendar_bench_<size> (with --reset) unless it holds exactly `events` events. */
async function ensureScalingDatabase(
  url: string,
  events: number,
  secret: string,
  log: (line: string) => void,
): Promise<void> {
  let current = -1;
  try {
    const db = await connect(url);
    try {
      current = await count(db, 'events');
    } finally {
      await db.end();
    }
  } catch {
    current = -1; // missing database or tables
  }
  if (current === events) return;
  const side = Math.max(100, Math.round(events / 100));
  log(
    `${databaseName(url)}: ${current < 0 ? 'missing' : `${current} events, not ${events}`}: seeding ` +
      `${events} events, ${side} venues, ${side} organizers`,
  );
  const args = [
    'run',
    'seed',
    '--',
    '--events',
    String(events),
    '--venues',
    String(side),
    '--organizers',
    String(side),
    '--reset',
  ];
  await new Promise<void>((done, fail) => {
    const child = spawn('npm', args, {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, AUTH_JWT_SECRET: secret },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', fail);
    child.once('exit', (code) =>
      code === 0 ? done() : fail(new Error(`npm run seed exited with ${code}`)),
    );
  });
}

/**
 * cleanupCreated once the servers are done: a load run ends with requests in
 * flight whose transactions still finish, so wait a moment and retry on
 * deadlocks and lock timeouts.
 */
export async function removeCreated(db: Connection): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    await new Promise((done) => setTimeout(done, 250));
    try {
      return await cleanupCreated(db);
    } catch (error) {
      const errno = (error as { errno?: number }).errno;
      if ((errno !== 1213 && errno !== 1205) || attempt >= 10) throw error;
    }
  }
}

/* ---- the run ---- */

export async function runBench(
  options: BenchOptions,
  log: (line: string) => void = (l) => console.log(l),
): Promise<BenchReport> {
  const settings = benchSettings();
  const pinned = options.pin && hasTaskset() && cpus().length >= 2;
  const core = pinned ? 0 : undefined;
  const entry = ensureBuilt(ROOT, log);
  const files: Files = {
    entry,
    ...transpileReferences(ROOT),
    logDir: mkdtempSync(join(tmpdir(), 'calendar-bench-')),
  };
  const token = await editorToken(settings.secret);
  const db = await connect(options.databaseUrl);
  let pair: Pair | undefined;
  const report: BenchReport = {
    machine: {},
    dataSizes: {},
    comparisons: [],
    equal: false,
    rows: [],
    errors: 0,
    warmUps: [],
    non2xx: 0,
    created: 0,
  };
  try {
    report.machine = await machine(db, pinned);
    report.dataSizes = await dataSizes(db);
    log(
      `machine: ${Object.entries(report.machine)
        .map(([k, v]) => `${k} ${v}`)
        .join('; ')}`,
    );
    log(
      `data (${databaseName(options.databaseUrl)}): ${Object.entries(report.dataSizes)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    log(
      `plan: sets ${options.sets.join(',')}; connections ${options.connections.join(',')}; ${options.rounds} round(s) × ` +
        `${options.duration} s per set and server; warm-up ${options.warmup} s${options.smoke ? ' (smoke)' : ''}; logs in ${files.logDir}`,
    );
    report.created += await removeCreated(db);

    pair = await startPair(options.databaseUrl, settings, files, core, 'main');
    const data = await discoverBenchData(db, {
      siteZone: settings.siteZone,
      language: settings.defaultLanguage,
      servicePort: pair.ours.port,
    });
    const sets = requestSets(data, randomBytes(4).toString('hex')).filter((set) =>
      options.sets.includes(set.key),
    );
    log(
      `service pid ${pair.ours.pid} port ${pair.ours.port}; baseline pid ${pair.baseline.pid} port ${pair.baseline.port}; ` +
        `minimal pid ${pair.minimal.pid} port ${pair.minimal.port}`,
    );
    log('byte-equality check (status, list headers, body):');
    const comparisons = await verify(sets, pair, token, db, log);
    report.comparisons = comparisons.map((c) => ({
      set: c.set.key,
      reference: c.reference,
      ok: c.ok,
      status: c.status,
      bytes: c.bytes,
      diff: c.diff,
    }));
    report.equal = comparisons.every((c) => c.ok);
    if (!report.equal) {
      log('the servers answer differently: not timing them');
      return report;
    }
    const against = (reference: Reference) =>
      comparisons.filter((c) => c.reference === reference).length;
    log(
      `byte-equality: all ${comparisons.length} comparison(s) identical ` +
        `(${sets.length} set(s) against the baseline, ${against('minimal')} against the minimal server)`,
    );
    if (pinned) pinSelf(1);

    const m: Measure = { pair, token, counter: { n: 0 }, db };
    if (options.warmup > 0) {
      const connections = Math.max(...options.connections);
      log(
        `warming up (per set and server at ${connections} connections: ${options.warmup}–${Math.max(options.warmup, options.warmupMax)} s, until CPU per request settles)…`,
      );
      for (const set of sets)
        for (const warm of await warmUpServers(m, set, connections, options)) {
          report.warmUps.push(warm);
          log(`  ${describeWarmUp(`${set.key} ${warm.server}`, warm)}`);
        }
      report.created += await removeCreated(db);
    }
    const runs = new Map<string, Record<ServerKey, RunResult[]>>();
    for (let round = 0; round < options.rounds; round++) {
      log(`round ${round + 1}/${options.rounds}…`);
      for (const set of sets) {
        for (const connections of options.connections) {
          const turn = round + options.connections.indexOf(connections);
          const result = await measure(m, set, connections, options.duration, turn);
          const key = `${set.key}/${connections}`;
          const entry = runs.get(key) ?? { ours: [], baseline: [], minimal: [] };
          for (const name of SERVERS) if (result[name]) entry[name].push(result[name]);
          runs.set(key, entry);
        }
        if (set.key === 'create') report.created += await removeCreated(db);
      }
    }
    const rows: ResultRow[] = [];
    for (const set of sets) {
      for (const connections of options.connections) {
        const entry = runs.get(`${set.key}/${connections}`);
        if (!entry) continue;
        const row = {
          set: set.key,
          connections,
          ours: aggregate(entry.ours),
          baseline: aggregate(entry.baseline),
          ...(entry.minimal.length > 0 ? { minimal: aggregate(entry.minimal) } : {}),
        };
        report.rows.push(row);
        rows.push({ ...row, set: set.label });
        for (const result of [row.ours, row.baseline, row.minimal]) {
          report.errors += result?.errors ?? 0;
          report.non2xx += result?.non2xx ?? 0;
        }
      }
    }
    report.table = resultTable(rows);
    report.ratioTable = ratioTable(rows);
    log('');
    log(report.table);
    log(
      `(p50/p99: response time over all rounds; RSS: the server's peak; CPU ms/req: the server's user + system CPU time per request; ` +
        `ours/base, ours/min: requests/s ratio service/baseline and service/minimal server)`,
    );
    log('');
    log(report.ratioTable);
    log(
      '(service ÷ reference: req/s above 1 is faster than the reference, p99 and CPU ms/req below 1 are better; — : the minimal server does not create)',
    );
    await stopPair(pair);
    pair = undefined;

    if (options.scaling) await runScaling(options, settings, files, core, token, report, log);
    return report;
  } finally {
    await stopPair(pair).catch(() => undefined);
    report.created += await removeCreated(db).catch(() => 0);
    await db.end().catch(() => undefined);
    if (options.json) writeFileSync(options.json, JSON.stringify(report, null, 2));
  }
}

async function runScaling(
  options: BenchOptions,
  settings: BenchSettings,
  files: Files,
  core: number | undefined,
  token: string,
  report: BenchReport,
  log: (line: string) => void,
): Promise<void> {
  log('\nscaling: the default list and page 200 per data size (1 connection)');
  report.scaling = [];
  const rows: ScalingRow[] = [];
  const firsts = new Map<SetKey, { ours: Aggregate; baseline: Aggregate; minimal: Aggregate }>();
  for (const size of options.sizes) {
    const events = SCALING_SIZES[size];
    const url = withDatabase(options.databaseUrl, `calendar_bench_${size}`);
    await ensureScalingDatabase(url, events, settings.secret, log);
    const db = await connect(url);
    let pair: Pair | undefined;
    try {
      pair = await startPair(url, settings, files, core, size);
      const data = await discoverBenchData(db, {
        siteZone: settings.siteZone,
        language: settings.defaultLanguage,
        servicePort: pair.ours.port,
      });
      const sets = requestSets(data, randomBytes(4).toString('hex')).filter(
        (s) => s.key === 'list' || s.key === 'page200',
      );
      log(`${databaseName(url)} (${events} events):`);
      const comparisons = await verify(sets, pair, token, db, log);
      if (!comparisons.every((c) => c.ok)) {
        report.equal = false;
        log('the servers answer differently: skipping this size');
        continue;
      }
      const m: Measure = { pair, token, counter: { n: 0 }, db };
      if (options.warmup > 0)
        for (const set of sets)
          for (const warm of await warmUpServers(m, set, 1, options)) {
            report.warmUps.push(warm);
            log(`  ${describeWarmUp(`${set.key} ${warm.server}`, warm)}`);
          }
      for (const set of sets) {
        const runs: Record<ServerKey, RunResult[]> = { ours: [], baseline: [], minimal: [] };
        for (let round = 0; round < options.rounds; round++) {
          const result = await measure(m, set, 1, options.duration, round);
          for (const name of SERVERS) if (result[name]) runs[name].push(result[name]);
        }
        const row = {
          ours: aggregate(runs.ours),
          baseline: aggregate(runs.baseline),
          minimal: aggregate(runs.minimal),
        };
        if (!firsts.has(set.key)) firsts.set(set.key, row);
        report.scaling.push({ size, events, set: set.key, ...row });
        rows.push({ size, set: set.label, ...row, first: firsts.get(set.key) });
        for (const result of [row.ours, row.baseline, row.minimal]) {
          report.errors += result.errors;
          report.non2xx += result.non2xx;
        }
      }
    } finally {
      await stopPair(pair);
      await db.end().catch(() => undefined);
    }
  }
  report.scalingTable = scalingTable(rows);
  log('');
  log(report.scalingTable);
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`);
    return 2;
  }
  const report = await runBench(options);
  const failed = report.comparisons.filter((c) => !c.ok);
  if (!report.equal) {
    console.error(
      `bench: FAILED: the servers answer differently (${failed.map((c) => c.set).join(', ') || 'scaling'})`,
    );
    return 1;
  }
  if (report.errors + report.non2xx > 0) {
    console.error(
      `bench: FAILED: ${report.errors} request errors/timeouts and ${report.non2xx} non-2xx answers while measuring`,
    );
    return 1;
  }
  console.log(
    '\n' +
      table(
        ['summary', 'value'],
        [
          [
            'byte-equality',
            `${report.comparisons.length}/${report.comparisons.length} comparisons`,
          ],
          ['errors/non-2xx', `${report.errors}/${report.non2xx}`],
          ['bench events removed', fixed(report.created, 0)],
        ],
      ),
  );
  return 0;
}

if (require.main === module) {
  main().then(
    async (code) => {
      await stopAll();
      process.exit(code);
    },
    async (error: unknown) => {
      console.error(
        `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      await stopAll();
      process.exit(1);
    },
  );
}
