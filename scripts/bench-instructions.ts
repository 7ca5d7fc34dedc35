/**
 * Instructions per request (a create unless `--set` names another of the
 * bench's request sets: list, month, page200, id, slug), counted by
 * callgrind: load-independent, unlike CPU time on a shared machine.
 *
 *   npm run bench:instructions -- [--database-url mysql://…] [--entry dist/main.js] [--set create]
 *                                 [--warmup 300] [--requests 20] [--windows 3] [--out-dir DIR]
 *
 * Starts the built service under `valgrind --tool=callgrind` on a seeded
 * database (`npm run seed -- --events 100000 …`), sends `--warmup` creates,
 * then per window zeroes the counters (`callgrind_control -z`), sends exactly
 * `--requests` creates one after the other from this process (outside
 * valgrind) and dumps (`callgrind_control -d`). Prints instructions per
 * create of each window and their median, all threads and the main thread
 * alone (--separate-threads): the main thread runs the requests, V8's helper
 * threads compile (TurboFan) and collect. After 30 warm-up creates the
 * helpers still spent about half of all instructions compiling, so the
 * default warm-up is 300. `--entry` takes another build
 * (e.g. a copy of main's dist) for before/after. The events it creates are
 * removed again (cleanupCreated). Dumps stay in --out-dir for callgrind_annotate.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { editorToken } from './bench';
import { sendRaw } from './bench/http';
import { serviceReady, startServer, stopServer, type Server } from './bench/processes';
import { BENCH_HOST, cleanupCreated, discoverBenchData, requestSets } from './bench/request-sets';
import { freePort } from './shared/process-tools';
import { benchSettings, serviceEnv, settingsEnv } from './shared/service-env';
import { callgrindTotal } from './bench/callgrind';
import { median } from './bench/round-stats';

const ROOT = resolve(__dirname, '..');

interface Options {
  databaseUrl: string;
  entry: string;
  set: string;
  warmup: number;
  requests: number;
  windows: number;
  outDir: string;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      'database-url': { type: 'string' },
      entry: { type: 'string' },
      set: { type: 'string' },
      warmup: { type: 'string' },
      requests: { type: 'string' },
      windows: { type: 'string' },
      'out-dir': { type: 'string' },
    },
  });
  const int = (name: string, value: string | undefined, fallback: number, max: number): number => {
    const n = value === undefined ? fallback : Number(value);
    if (!Number.isInteger(n) || n < 0 || n > max)
      throw new Error(`--${name} must be an integer 0…${max}`);
    return n;
  };
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL ?? '';
  if (!databaseUrl.startsWith('mysql://'))
    throw new Error('--database-url (or DATABASE_URL) must be mysql://…');
  return {
    databaseUrl,
    entry: resolve(values.entry ?? join(ROOT, 'dist/main.js')),
    set: values.set ?? 'create',
    warmup: int('warmup', values.warmup, 300, 10_000),
    requests: Math.max(1, int('requests', values.requests, 20, 10_000)),
    windows: Math.max(1, int('windows', values.windows, 3, 100)),
    outDir: values['out-dir'] ?? mkdtempSync(join(tmpdir(), 'calendar-instr-')),
  };
}

/** The instruction total (Ir) of one callgrind dump file. */
const dumpTotal = (file: string): number => callgrindTotal(readFileSync(file, 'utf8'));

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  mkdirSync(opts.outDir, { recursive: true });
  const settings = benchSettings();
  const { secret, siteZone } = settings;
  const port = await freePort();
  const { createConnection } = await import('mysql2/promise');
  const db = await createConnection({
    uri: opts.databaseUrl,
    supportBigNumbers: true,
    bigNumberStrings: false,
  });
  let server: Server | undefined;
  try {
    await cleanupCreated(db);
    server = await startServer({
      name: 'service under callgrind',
      port,
      node: 'valgrind',
      args: [
        '--tool=callgrind',
        // V8 writes and rewrites machine code in anonymous memory.
        '--smc-check=all-non-file',
        // One dump per thread: the main thread (…-01) runs the requests; V8's helpers compile and collect.
        '--separate-threads=yes',
        `--callgrind-out-file=${join(opts.outDir, 'callgrind.out.%p')}`,
        process.execPath,
        opts.entry,
      ],
      env: serviceEnv(secret, {
        DATABASE_URL: opts.databaseUrl,
        ...settingsEnv(settings),
        PORT: String(port),
      }),
      logFile: join(opts.outDir, 'service.log'),
      ready: serviceReady,
      timeoutMs: 900_000,
    });
    const pid = server.pid;
    const data = await discoverBenchData(db, { siteZone, servicePort: port });
    const set = requestSets(data, randomBytes(4).toString('hex')).find(
      (candidate) => candidate.key === opts.set,
    );
    if (!set) throw new Error(`no request set ${opts.set}`);
    const token = await editorToken(secret);
    let n = 0;
    const send = async () => {
      const response = await sendRaw({
        port,
        method: set.body ? 'POST' : 'GET',
        path: set.path,
        body: set.body?.(n++, 'inst'),
        headers: set.body
          ? { host: BENCH_HOST, authorization: `Bearer ${token}` }
          : { host: BENCH_HOST },
        timeoutMs: 120_000,
      });
      const expected = set.body ? 201 : 200;
      if (response.status !== expected)
        throw new Error(
          `${set.key} answered ${response.status}: ${response.body.toString().slice(0, 300)}`,
        );
    };
    for (let i = 0; i < opts.warmup; i++) await send();
    const perCreate: number[] = [];
    const mainPerCreate: number[] = [];
    for (let w = 0; w < opts.windows; w++) {
      execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore' });
      for (let i = 0; i < opts.requests; i++) await send();
      const before = new Set(readdirSync(opts.outDir));
      execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
      const dumps = readdirSync(opts.outDir).filter(
        (f) => f.startsWith('callgrind.out') && !before.has(f),
      );
      if (dumps.length === 0) throw new Error('callgrind_control -d wrote no dump');
      const all = dumps.reduce((sum, f) => sum + dumpTotal(join(opts.outDir, f)), 0);
      const mainDump = dumps.find((f) => f.endsWith('-01'));
      const main = mainDump === undefined ? all : dumpTotal(join(opts.outDir, mainDump));
      perCreate.push(all / opts.requests);
      mainPerCreate.push(main / opts.requests);
      console.log(
        `window ${w + 1}: ${(perCreate[w] / 1e6).toFixed(2)} M instructions per ${opts.set}, ` +
          `main thread ${(mainPerCreate[w] / 1e6).toFixed(2)} M (${dumps.length} thread dump(s))`,
      );
    }
    const [events] = await db.query('SELECT COUNT(*) AS n FROM events');
    console.log(
      `entry ${opts.entry}; ${(events as Array<{ n: number }>)[0].n} events; warm-up ${opts.warmup}, ` +
        `${opts.windows} × ${opts.requests} ${opts.set} requests; load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    const line = (what: string, values: number[]) =>
      `${what}: median ${(median(values) / 1e6).toFixed(2)} M, min ${(Math.min(...values) / 1e6).toFixed(2)} M, ` +
      `max ${(Math.max(...values) / 1e6).toFixed(2)} M`;
    console.log(line(`instructions per ${opts.set}, all threads`, perCreate));
    console.log(line(`instructions per ${opts.set}, main thread`, mainPerCreate));
    console.log(`dumps in ${opts.outDir}`);
  } finally {
    await stopServer(server);
    await cleanupCreated(db).catch(() => 0);
    await db.end();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(
      `bench:instructions: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(1);
  });
}
