/**
 * Event creates of two or more builds of the service on one database,
 * alternated: what a change did to creates/s and CPU per create, measured in
 * one sitting (the machine's speed moves between sittings). Each build is a
 * `dist/main.js` (another checkout: `git worktree add ../old <rev>`, link
 * node_modules, `npx nest build` there); the first named is the reference
 * of the ratios. The create body is `npm run bench`'s.
 *
 *   npm run bench:builds -- --entries ../old/dist/main.js,dist/main.js
 *                           [--database-url mysql://…] [--connections 10,1]
 *                           [--rounds 3] [--duration 10] [--warmup 4]
 *
 * Per round and build (the order turns each round): start it pinned to core 0
 * (this process on core 1), warm up at 10 connections until CPU per create
 * settles (at least --warmup seconds: bench/warm-up.ts), then measure each
 * connection count. Prints each run and, per build and connection count, the
 * median creates/s, p99 and CPU ms per create with the ratio to the first
 * build. Events it creates are removed again.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { connect, editorToken, removeCreated } from './bench';
import { aggregate, runLoad, type Aggregate } from './bench/load';
import { hasTaskset, pinSelf, serviceReady, startServer, stopServer } from './bench/processes';
import { discoverBenchData, requestSets, type RequestSet } from './bench/request-sets';
import { median } from './bench/round-stats';
import { DEFAULT_WARM_UP, describeWarmUp, warmUp } from './bench/warm-up';
import { freePort } from './shared/process-tools';
import { benchSettings, serviceEnv, settingsEnv } from './shared/service-env';

interface Options {
  databaseUrl: string;
  entries: string[];
  connections: number[];
  rounds: number;
  duration: number;
  warmup: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      entries: { type: 'string' },
      connections: { type: 'string', default: '10,1' },
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '4' },
    },
  });
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL ?? '';
  if (!databaseUrl.startsWith('mysql://'))
    throw new Error('--database-url (or DATABASE_URL) must be mysql://… (a seeded database)');
  const entries = (values.entries ?? '')
    .split(',')
    .filter(Boolean)
    .map((entry) => resolve(entry));
  if (entries.length < 2)
    throw new Error('--entries needs two builds or more (dist/main.js files)');
  for (const entry of entries) if (!existsSync(entry)) throw new Error(`no such build: ${entry}`);
  const positive = (name: string, value: string, integer: boolean) => {
    const n = Number(value);
    if (!(n > 0) || (integer && !Number.isInteger(n)) || n > 10_000)
      throw new Error(`--${name} must be a positive ${integer ? 'integer' : 'number'}`);
    return n;
  };
  const connections = values.connections.split(',').map((c) => positive('connections', c, true));
  if (connections.length > 8) throw new Error('--connections takes at most 8 counts');
  return {
    databaseUrl,
    entries,
    connections,
    rounds: positive('rounds', values.rounds, true),
    duration: positive('duration', values.duration, false),
    warmup: positive('warmup', values.warmup, false),
  };
}

async function main(): Promise<void> {
  const opts = options();
  const settings = benchSettings();
  const env = serviceEnv(settings.secret, {
    DATABASE_URL: opts.databaseUrl,
    ...settingsEnv(settings),
  });
  const logDir = mkdtempSync(join(tmpdir(), 'calendar-builds-'));
  const core = hasTaskset() ? 0 : undefined;
  if (core !== undefined) pinSelf(1);
  const token = await editorToken(settings.secret);
  const db = await connect(opts.databaseUrl);
  const counter = { n: 0 };
  const runs = new Map<string, Aggregate[]>();
  let create: RequestSet | undefined;
  try {
    await removeCreated(db);
    for (let round = 1; round <= opts.rounds; round++) {
      // The order turns each round, so no build always runs first.
      const order = opts.entries.map((_, i) => (i + round - 1) % opts.entries.length);
      for (const at of order) {
        const entry = opts.entries[at];
        const port = await freePort();
        const server = await startServer({
          name: `build ${at + 1}`,
          port,
          args: [entry],
          env: { ...env, PORT: String(port) },
          core,
          logFile: join(logDir, `build-${at + 1}-round-${round}.log`),
          ready: serviceReady,
        });
        try {
          create ??= requestSets(
            await discoverBenchData(db, {
              siteZone: settings.siteZone,
              language: settings.defaultLanguage,
              servicePort: port,
            }),
            'builds',
          ).find((set) => set.key === 'create');
          if (!create) throw new Error('no create request set');
          const load = (connections: number, seconds: number) =>
            runLoad({
              port,
              pid: server.pid,
              set: create as RequestSet,
              connections,
              seconds,
              token,
              tag: 'b',
              counter,
            });
          const warm = await warmUp((seconds) => load(10, seconds), {
            ...DEFAULT_WARM_UP,
            minSeconds: opts.warmup,
          });
          console.log(describeWarmUp(`round ${round} build ${at + 1} warm-up`, warm));
          for (const connections of opts.connections) {
            const result = aggregate([await load(connections, opts.duration)]);
            if (result.errors + result.non2xx > 0)
              throw new Error(
                `build ${at + 1}: ${result.errors} errors, ${result.non2xx} non-2xx answers`,
              );
            const key = `${at}|${connections}`;
            runs.set(key, [...(runs.get(key) ?? []), result]);
            console.log(
              `round ${round} build ${at + 1} ${connections} conn: ${result.rps.toFixed(1)} creates/s, ` +
                `p99 ${result.p99.toFixed(1)} ms, ${result.cpuMsPerRequest.toFixed(2)} ms CPU/create`,
            );
          }
        } finally {
          await stopServer(server);
        }
      }
    }
  } finally {
    console.log(`removed ${await removeCreated(db)} bench events`);
    await db.end();
  }
  console.log('\nbuilds:');
  opts.entries.forEach((entry, i) => console.log(`  ${i + 1}: ${entry}`));
  console.log(
    `\n| build | conn | creates/s (median of ${opts.rounds}) | p99 ms | CPU ms/create | creates/s ÷ build 1 | CPU ÷ build 1 |`,
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const connections of opts.connections) {
    const of = (at: number) => runs.get(`${at}|${connections}`) ?? [];
    const rps = (at: number) => median(of(at).map((r) => r.rps));
    const cpu = (at: number) => median(of(at).map((r) => r.cpuMsPerRequest));
    opts.entries.forEach((_, at) =>
      console.log(
        `| ${at + 1} | ${connections} | ${rps(at).toFixed(1)} | ${median(of(at).map((r) => r.p99)).toFixed(1)} | ` +
          `${cpu(at).toFixed(2)} | ${(rps(at) / rps(0)).toFixed(2)}× | ${(cpu(at) / cpu(0)).toFixed(2)}× |`,
      ),
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
