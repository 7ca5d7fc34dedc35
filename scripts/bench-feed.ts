/**
 * Benchmark of the changes feed (issue 13, contract §12) on a seeded
 * MySQL/MariaDB database:
 *
 *   npm run bench:feed -- [--database-url mysql://…] [--polls 300] [--rounds 10]
 *                         [--create-seconds 10] [--base-ref <git ref>] [--no-pin]
 *                         [--no-creates] [--sync-pages N] [--sync-only] [--profile DIR]
 *                         [--node-arg=--trace-gc …]
 *
 * 1. full sync: an anonymous client follows the feed from the beginning with
 *    per_page=1000 (records/s, and records per CPU second of the service,
 *    which a busy machine distorts less); with --sync-pages only the first N
 *    answers, and the polls below start from a cursor at the feed's end
 *    (what a client that read on holds: signed here with the database's key);
 * 2. an unchanged poll with the last cursor (p50/p99; with If-None-Match too
 *    when the answer carries an ETag);
 * 3. an incremental poll after 100 event updates (p50 over --rounds);
 *    latencies run to the answer's last byte (the client's JSON parse is its own);
 * 4. create throughput (the bench's create set, 1 and 10 connections) of this
 *    build against the build of --base-ref without the change tracking
 *    (default: the parent of the commit that added it), alternating; left
 *    out with --no-creates (reads only, no second build).
 *
 * The service's RSS is sampled every 200 ms from /proc during the sync (its
 * peak and where it started). `--sync-only`: the sync alone, then stop; it
 * writes nothing, so it may run against a shared read-only data set (no
 * migrations, no background workers).
 *
 * Seed first, e.g. `npm run seed -- --events 100000 --venues 1000 --organizers 1000`.
 * Events it creates or renames are the bench's own (author BENCH_AUTHOR_ID)
 * or get their title back; created ones are removed at the end.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { RowDataPacket } from 'mysql2/promise';
import { editorToken } from './bench';
import { DEFAULT_SECRET as SECRET } from './shared/service-env';
import { aggregate, percentile, RunResult, runLoad } from './bench/load';
import {
  hasTaskset,
  pinSelf,
  Server,
  serviceReady,
  startServer,
  stopAll,
  stopServer,
} from './bench/processes';
import { API, cleanupCreated, discoverBenchData, requestSets } from './bench/request-sets';
import { CursorCodec } from '../src/changes/change-cursor';
import { cpuSeconds, ensureBuilt, freePort, rssMb } from './shared/process-tools';

const ROOT = resolve(__dirname, '..');
/** The commit whose parent has no change tracking. */
const TRACKING_COMMIT_SUBJECT = 'feat(changes): change tracking inside every write transaction';

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      polls: { type: 'string', default: '300' },
      rounds: { type: 'string', default: '10' },
      'create-seconds': { type: 'string', default: '10' },
      'base-ref': { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      'no-creates': { type: 'boolean', default: false },
      'sync-pages': { type: 'string' },
      'sync-only': { type: 'boolean', default: false },
      /** Writes a V8 CPU profile of the service into this folder when it stops (node --cpu-prof). */
      profile: { type: 'string' },
      /** Passed to the service's node (e.g. --trace-gc, --heapsnapshot-signal=SIGUSR2); repeatable. */
      'node-arg': { type: 'string', multiple: true },
    },
  });
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL ?? '';
  if (!databaseUrl.startsWith('mysql://'))
    throw new Error('set DATABASE_URL (or --database-url) to a seeded MySQL database');
  const pin = !values['no-pin'] && hasTaskset();
  if (pin) pinSelf(1);
  const logDir = mkdtempSync(join(tmpdir(), 'bench-feed-'));
  const { createConnection } = await import('mysql2/promise');
  const db = await createConnection({ uri: databaseUrl });
  const token = await editorToken(SECRET);

  const entry = ensureBuilt(ROOT, log);
  const profile = [
    ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values.profile)}`] : []),
    ...(values['node-arg'] ?? []),
  ];
  const syncOnly = values['sync-only'] === true;
  const service = await start('service', entry, databaseUrl, logDir, pin, false, profile, syncOnly);
  log(`service pid ${service.pid}, log ${logDir}/service.log`);
  const report: string[] = [];
  // The create set of `npm run bench` (its data is found with the service's help), found
  // before the sync so the sync's figures hold its work too; a sync alone needs none.
  const create = syncOnly ? undefined : await createSet(db, service.port);
  try {
    const [[{ n: events }]] = await db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM events');
    report.push(
      `data: ${Number(events).toLocaleString('en')} events (${new URL(databaseUrl).pathname.slice(1)})`,
    );

    // 1. Full sync.
    const maxPages = values['sync-pages'] ? Number(values['sync-pages']) : Infinity;
    const cpuBefore = cpuSeconds(service.pid) ?? 0;
    const rssBefore = rssMb(service.pid) ?? 0;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMb(service.pid) ?? 0);
    }, 200);
    const sync = await fullSync(service.port, maxPages).finally(() => clearInterval(sampler));
    const cpu = (cpuSeconds(service.pid) ?? 0) - cpuBefore;
    rssPeak = Math.max(rssPeak, rssMb(service.pid) ?? 0);
    report.push(
      `${sync.complete ? 'full sync' : `sync of the first ${sync.pages} answers`} (anonymous, per_page=1000): ` +
        `${sync.records.toLocaleString('en')} records in ${sync.pages} answers, ` +
        `${sync.seconds.toFixed(1)} s = ${Math.round(sync.records / sync.seconds).toLocaleString('en')} records/s; ` +
        `service CPU ${cpu.toFixed(1)} s = ${Math.round(sync.records / cpu).toLocaleString('en')} records per CPU second; ` +
        `service RSS ${rssBefore.toFixed(0)} MB before, peak ${rssPeak.toFixed(0)} MB (sampled every 200 ms)`,
    );
    if (syncOnly) {
      await db.end();
      process.stdout.write(`${report.join('\n')}\n`);
      return;
    }
    if (!sync.complete) sync.cursor = await endCursor(db);

    // 2. Unchanged polls.
    const polls = Number(values.polls);
    const plain = await timed(
      polls,
      () => get(service.port, `${API}/changes?since=${sync.cursor}`),
      service.pid,
    );
    report.push(
      `unchanged poll (empty page): p50 ${plain.p50.toFixed(2)} ms, p99 ${plain.p99.toFixed(2)} ms, ` +
        `service CPU ${plain.cpuMs.toFixed(2)} ms per poll (${polls} polls)`,
    );
    const etag = (await get(service.port, `${API}/changes?since=${sync.cursor}`)).etag;
    if (etag) {
      const conditional = await timed(
        polls,
        () => get(service.port, `${API}/changes?since=${sync.cursor}`, { 'if-none-match': etag }),
        service.pid,
      );
      report.push(
        `unchanged poll with If-None-Match (304): p50 ${conditional.p50.toFixed(2)} ms, p99 ${conditional.p99.toFixed(2)} ms, ` +
          `service CPU ${conditional.cpuMs.toFixed(2)} ms per poll`,
      );
    }

    // 3. Incremental polls after 100 changes.
    const [targets] = await db.query<RowDataPacket[]>(
      "SELECT e.id, t.title FROM events e JOIN event_translations t ON t.event_id = e.id AND t.language = 'nl' WHERE e.status = 'publish' ORDER BY e.id LIMIT 100",
    );
    let cursor = sync.cursor;
    const incremental: number[] = [];
    let incrementalCpu = 0;
    let updatesCpu = 0;
    for (let round = 0; round < Number(values.rounds); round++) {
      const updatesCpuBefore = cpuSeconds(service.pid) ?? 0;
      for (const target of targets) {
        await post(
          service.port,
          `${API}/events/${target.id}`,
          { title: `${target.title} (${round})` },
          token,
        );
      }
      // Work the updates leave running after their answers (none, or reading ahead
      // for the feed) counts here or, if still running, in the poll's CPU.
      updatesCpu += (cpuSeconds(service.pid) ?? 0) - updatesCpuBefore;
      const [started, cpuBefore] = [process.hrtime.bigint(), cpuSeconds(service.pid) ?? 0];
      const page = await get(service.port, `${API}/changes?per_page=1000&since=${cursor}`);
      incremental.push(Number(process.hrtime.bigint() - started) / 1e6);
      incrementalCpu += (cpuSeconds(service.pid) ?? 0) - cpuBefore;
      log(
        `  incremental round ${round + 1}: ${incremental[round].toFixed(1)} ms, ${page.bytes.toLocaleString('en')} bytes`,
      );
      const body = page.body() as { changes: unknown[]; next_cursor: string; has_more: boolean };
      if (body.changes.length !== 100 || body.has_more)
        throw new Error(`expected 100 changes, got ${body.changes.length}`);
      cursor = body.next_cursor;
    }
    for (const target of targets)
      await post(service.port, `${API}/events/${target.id}`, { title: target.title }, token);
    const sorted = Float64Array.from(incremental).sort();
    report.push(
      `incremental poll after 100 changes: p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms, ` +
        `service CPU ${((incrementalCpu * 1000) / incremental.length).toFixed(1)} ms per poll (${incremental.length} rounds; CPU in 10 ms ticks); ` +
        `the updates before them: service CPU ${((updatesCpu * 1000) / (incremental.length * targets.length)).toFixed(2)} ms per update`,
    );
  } finally {
    await stopServer(service);
  }

  if (values['no-creates']) {
    await db.end();
    process.stdout.write(`${report.join('\n')}\n`);
    return;
  }

  // 4. Create throughput with and without the change tracking.
  const base = buildBase(values['base-ref'], logDir);
  report.push(
    `create throughput: this build vs ${base.label} (no change tracking), ${values['create-seconds']} s per run`,
  );
  const counter = { n: 0 };
  if (!create) throw new Error('no create set');
  for (const connections of [1, 10]) {
    const runs: Record<'tracking' | 'base', RunResult[]> = { tracking: [], base: [] };
    for (const order of [
      ['base', 'tracking'],
      ['tracking', 'base'],
      ['base', 'tracking'],
    ] as const) {
      for (const name of order) {
        const server = await start(
          name,
          name === 'base' ? base.entry : entry,
          databaseUrl,
          logDir,
          pin,
          name === 'base',
        );
        try {
          runs[name].push(
            await runLoad({
              port: server.port,
              pid: server.pid,
              set: create,
              connections,
              seconds: Number(values['create-seconds']),
              token,
              tag: name === 'base' ? 'b' : 't',
              counter,
            }),
          );
        } finally {
          await stopServer(server);
        }
      }
    }
    const [tracking, without] = [aggregate(runs.tracking), aggregate(runs.base)];
    if (tracking.non2xx + tracking.errors + without.non2xx + without.errors > 0)
      throw new Error('a create failed');
    report.push(
      `  ${connections} conn: with tracking ${tracking.rps.toFixed(1)} req/s (p50 ${tracking.p50.toFixed(1)} ms), ` +
        `without ${without.rps.toFixed(1)} req/s (p50 ${without.p50.toFixed(1)} ms): ${((tracking.rps / without.rps - 1) * 100).toFixed(1)} %`,
    );
  }
  log(`removed ${await cleanupCreated(db)} bench events`);
  execFileSync('git', ['worktree', 'remove', '--force', base.dir], { cwd: ROOT });
  await db.end();
  process.stdout.write(`${report.join('\n')}\n`);
}

async function start(
  name: string,
  entry: string,
  databaseUrl: string,
  logDir: string,
  pin: boolean,
  noMigrations = false,
  nodeOptions: string[] = [],
  /** No migrations and no background workers (webhook sender, imports): a read-only run. */
  readOnly = false,
): Promise<Server> {
  const port = await freePort();
  return startServer({
    name,
    port,
    args: [...nodeOptions, entry],
    env: {
      PATH: process.env.PATH ?? '',
      // glibc's malloc settings (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, …), to measure them.
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('MALLOC_'))),
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      AUTH_JWT_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      ...(noMigrations || readOnly ? { DB_MIGRATIONS_RUN: 'false' } : {}),
      ...(readOnly ? { WEBHOOKS_WORKER: 'false', IMPORTS_WORKER: 'false' } : {}),
    },
    core: pin ? 0 : undefined,
    logFile: join(logDir, `${name}.log`),
    ready: serviceReady,
  });
}

/** The create set of `npm run bench`. */
async function createSet(db: import('mysql2/promise').Connection, port: number) {
  const data = await discoverBenchData(db, { siteZone: 'UTC', servicePort: port });
  const create = requestSets(data, randomBytes(3).toString('hex')).find(
    (set) => set.key === 'create',
  );
  if (!create) throw new Error('no create set');
  return create;
}

/** A build of the code before the change tracking, in a temporary worktree. */
function buildBase(
  ref: string | undefined,
  logDir: string,
): { entry: string; label: string; dir: string } {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const commit =
    ref ?? `${git('log', '--format=%H', '-1', '-F', `--grep=${TRACKING_COMMIT_SUBJECT}`)}^`;
  const dir = join(logDir, 'base');
  git('worktree', 'add', '--detach', dir, commit);
  if (!existsSync(join(dir, 'node_modules')))
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  log(`building ${commit} in ${dir}`);
  execFileSync('npx', ['nest', 'build'], { cwd: dir, stdio: ['ignore', 2, 2] });
  return { entry: join(dir, 'dist/main.js'), label: git('rev-parse', '--short', commit), dir };
}

/** A cursor at the feed's head, as a client that read to the end holds it. */
async function endCursor(db: import('mysql2/promise').Connection): Promise<string> {
  const [[state]] = await db.query<RowDataPacket[]>(
    'SELECT seq, cursor_key FROM change_state WHERE id = 1',
  );
  const codec = new CursorCodec(Buffer.from(String(state.cursor_key), 'hex'));
  return codec.encode({ seq: Number(state.seq) });
}

async function fullSync(
  port: number,
  maxPages = Infinity,
): Promise<{ records: number; pages: number; seconds: number; cursor: string; complete: boolean }> {
  let cursor: string | undefined;
  let records = 0;
  let pages = 0;
  const started = process.hrtime.bigint();
  for (;;) {
    const answer = await get(
      port,
      `${API}/changes?per_page=1000${cursor ? `&since=${cursor}` : ''}`,
    );
    const page = answer.body() as { changes: unknown[]; next_cursor: string; has_more: boolean };
    records += page.changes.length;
    pages += 1;
    cursor = page.next_cursor;
    if (!page.has_more) break;
    if (pages >= maxPages) {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      return { records, pages, seconds, cursor, complete: false };
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { records, pages, seconds, cursor, complete: true };
}

async function timed(
  n: number,
  request: () => Promise<unknown>,
  pid: number,
): Promise<{ p50: number; p99: number; cpuMs: number }> {
  for (let i = 0; i < 20; i++) await request();
  const samples = new Float64Array(n);
  const cpuBefore = cpuSeconds(pid) ?? 0;
  for (let i = 0; i < n; i++) {
    const started = process.hrtime.bigint();
    await request();
    samples[i] = Number(process.hrtime.bigint() - started) / 1e6;
  }
  const cpuMs = (((cpuSeconds(pid) ?? 0) - cpuBefore) * 1000) / n;
  samples.sort();
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), cpuMs };
}

/**
 * A GET whose promise resolves when the answer's last byte arrived: what a poll
 * costs a client up to there. Its JSON is parsed on demand (`body()`), outside
 * the timings: parsing 600 KB takes this client about 3 ms, whatever the service.
 */
async function get(port: number, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  if (response.status !== 200 && response.status !== 304)
    throw new Error(`GET ${path}: ${response.status}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    bytes: bytes.length,
    body: () => (bytes.length ? (JSON.parse(bytes.toString('utf8')) as unknown) : undefined),
  };
}

async function post(port: number, path: string, body: object, token: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
}

main()
  .catch((error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exitCode = 1;
  })
  // Exits once the children are stopped: the report is out, and an idle keep-alive
  // socket or pool timer must not keep a finished benchmark running.
  .finally(() => stopAll().finally(() => process.exit()));
