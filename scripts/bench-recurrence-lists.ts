/**
 * Lists with recurring series against lists of one-off events (issue 16):
 * the built service (dist/main.js) started on two seeded MariaDB/MySQL
 * databases at once, e.g. 1M one-off events and 10,000 series with about 1M
 * occurrences (`npm run seed -- --events 0 --series 10000 …`), measured in one
 * run on the default `/events` list and a one-month window in the future.
 *
 *   npm run bench:recurrence -- --compare-lists \
 *     --one-off-url mysql://root@127.0.0.1:3306/calendar_bench_1m \
 *     --series-url mysql://root@127.0.0.1:3306/calendar_seriesbench_bench_1m \
 *     [--duration 5] [--rounds 3] [--connections 1,10] [--warmup 2] [--month YYYY-MM] [--no-pin]
 *
 * Both servers are pinned to core 0 and the load generator (this process,
 * scripts/bench/load.ts) to core 1, as `npm run bench` does; each set and
 * connection count is measured round after round, alternating which database
 * goes first. Before timing, both must answer every set 200 with the same
 * shape (the same fields in the answer and in its records). The services
 * start without migrations and nothing here writes: the databases are only read.
 *
 * Exit code 1 when an answer is wrong or a measured request failed.
 */
import { loadavg, cpus, tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import type { RowDataPacket } from 'mysql2/promise';
import { editorToken } from './bench';
import { sendRaw } from './bench/http';
import { aggregate, Aggregate, RunResult, runLoad } from './bench/load';
import {
  hasTaskset,
  pinSelf,
  Server,
  serviceReady,
  startServer,
  stopAll,
  stopServer,
} from './bench/processes';
import { fixed, table } from './bench/report';
import { API, BENCH_HOST, RequestSet } from './bench/request-sets';
import { ensureBuilt, freePort } from './shared/process-tools';
import { benchSettings, serviceEnv, settingsEnv } from './shared/service-env';

const ROOT = resolve(__dirname, '..');
const SIDES = ['one-off', 'series'] as const;
type Side = (typeof SIDES)[number];

interface Options {
  urls: Record<Side, string>;
  duration: number;
  rounds: number;
  connections: number[];
  warmup: number;
  month: string;
  pin: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--compare-lists'),
    options: {
      'one-off-url': { type: 'string' },
      'series-url': { type: 'string' },
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '1,10' },
      warmup: { type: 'string', default: '2' },
      month: { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const url = (name: 'one-off-url' | 'series-url') => {
    const value = values[name] ?? '';
    if (!/^(mysql|mariadb):\/\//.test(value))
      throw new Error(`--${name} must name a MySQL/MariaDB database: mysql://user@host:port/name`);
    return value;
  };
  const positive = (name: string, value: string) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number, not "${value}"`);
    return n;
  };
  const month = values.month ?? (DateTime.utc().plus({ months: 1 }).toFormat('yyyy-MM') as string);
  if (!/^\d{4}-\d{2}$/.test(month)) throw new Error('--month must be YYYY-MM');
  return {
    urls: { 'one-off': url('one-off-url'), series: url('series-url') },
    duration: positive('duration', values.duration),
    rounds: Math.max(1, Math.floor(positive('rounds', values.rounds))),
    connections: values.connections.split(',').map((c) => Math.max(1, Number(c))),
    warmup: positive('warmup', values.warmup),
    month,
    pin: !values['no-pin'],
  };
}

const databaseName = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** Events, series and occurrences of a database (read only). */
async function sizes(url: string): Promise<Record<string, number>> {
  const { createConnection } = await import('mysql2/promise');
  const db = await createConnection({ uri: url });
  try {
    const [rows] = await db.query<RowDataPacket[]>(
      `SELECT COUNT(*) AS events,
         SUM(CASE WHEN recurrence IS NOT NULL THEN 1 ELSE 0 END) AS series,
         SUM(CASE WHEN occurrence_date IS NOT NULL THEN 1 ELSE 0 END) AS occurrences,
         SUM(CASE WHEN status = 'publish' AND hide_from_listings = 0 AND start_at >= UNIX_TIMESTAMP() THEN 1 ELSE 0 END) AS upcoming
       FROM events`,
    );
    return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v ?? 0)]));
  } finally {
    await db.end();
  }
}

/** The field names of an answer and of its first record, for the shape check. */
function shape(body: unknown): string {
  const answer = body as Record<string, unknown>;
  const first = (answer.events as Array<Record<string, unknown>> | undefined)?.[0] ?? {};
  return `${Object.keys(answer).join(',')} | ${Object.keys(first).join(',')}`;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const log = (line: string) => console.log(line);
  const entry = ensureBuilt(ROOT, log);
  const settings = benchSettings();
  const { secret } = settings;
  const pinned = options.pin && hasTaskset() && cpus().length >= 2;
  const logDir = mkdtempSync(join(tmpdir(), 'calendar-bench-lists-'));
  const start = DateTime.fromISO(`${options.month}-01`, { zone: 'UTC' });
  const month = { start: start.toISODate(), end: start.endOf('month').toISODate() };
  const sets: RequestSet[] = [
    { key: 'list', label: 'default list', method: 'GET', path: `${API}/events` },
    {
      key: 'month',
      label: `one month (${options.month})`,
      method: 'GET',
      path: `${API}/events?start_date=${month.start}&end_date=${month.end}`,
    },
  ];

  log(
    `started ${new Date().toISOString()}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const side of SIDES) {
    const size = await sizes(options.urls[side]);
    log(
      `${side}: ${databaseName(options.urls[side])}: ${Object.entries(size)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  }
  const servers = {} as Record<Side, Server>;
  try {
    for (const side of SIDES) {
      const port = await freePort();
      servers[side] = await startServer({
        name: side,
        port,
        args: [entry],
        env: serviceEnv(secret, {
          ...settingsEnv(settings),
          // The same cap on both sides, whatever the caller's MAX_PER_PAGE.
          MAX_PER_PAGE: '50',
          PORT: String(port),
          DATABASE_URL: options.urls[side],
          // Read only: no migrations.
          DB_MIGRATIONS_RUN: 'false',
        }),
        core: pinned ? 0 : undefined,
        logFile: join(logDir, `${side}.log`),
        ready: serviceReady,
      });
    }

    // Every set answers 200 with the same shape on both databases.
    let ok = true;
    for (const set of sets) {
      const shapes: string[] = [];
      for (const side of SIDES) {
        const res = await sendRaw({
          port: servers[side].port,
          method: 'GET',
          path: set.path,
          headers: { host: BENCH_HOST },
        });
        const body =
          res.status === 200 ? (JSON.parse(res.body.toString()) as Record<string, unknown>) : {};
        shapes.push(shape(body));
        const events = (body.events as unknown[] | undefined)?.length ?? 0;
        log(
          `  ${side.padEnd(7)} ${set.path}: ${res.status}, total ${String(body.total)}, ${events} records, ${res.body.length} bytes`,
        );
        if (res.status !== 200 || events === 0) ok = false;
      }
      if (shapes[0] !== shapes[1]) {
        log(`  DIFFERENT shapes for ${set.label}:\n    ${shapes.join('\n    ')}`);
        ok = false;
      }
    }
    if (!ok) {
      log('an answer is wrong: not timing');
      return 1;
    }
    if (pinned) pinSelf(1);

    const token = await editorToken(secret);
    const counter = { n: 0 };
    const run = (side: Side, set: RequestSet, connections: number, seconds: number) =>
      runLoad({
        port: servers[side].port,
        pid: servers[side].pid,
        set,
        connections,
        seconds,
        token,
        tag: side,
        counter,
      });
    if (options.warmup > 0) {
      log(`warming up (${options.warmup} s per set and database)…`);
      for (const set of sets)
        for (const side of SIDES)
          await run(side, set, Math.max(...options.connections), options.warmup);
    }
    const runs = new Map<string, Record<Side, RunResult[]>>();
    for (let round = 0; round < options.rounds; round++) {
      log(`round ${round + 1}/${options.rounds} (load average ${loadavg()[0].toFixed(2)})…`);
      for (const set of sets) {
        for (const [index, connections] of options.connections.entries()) {
          const order: Side[] =
            (round + index) % 2 === 0 ? ['one-off', 'series'] : ['series', 'one-off'];
          const key = `${set.key}/${connections}`;
          const entry = runs.get(key) ?? { 'one-off': [], series: [] };
          for (const side of order)
            entry[side].push(await run(side, set, connections, options.duration));
          runs.set(key, entry);
        }
      }
    }

    const rows: string[][] = [];
    let failed = 0;
    for (const set of sets) {
      for (const connections of options.connections) {
        const entry = runs.get(`${set.key}/${connections}`);
        if (!entry) continue;
        const a: Record<Side, Aggregate> = {
          'one-off': aggregate(entry['one-off']),
          series: aggregate(entry.series),
        };
        failed += a['one-off'].errors + a['one-off'].non2xx + a.series.errors + a.series.non2xx;
        rows.push([
          set.label,
          String(connections),
          ...SIDES.flatMap((side) => [
            fixed(a[side].rps, 0),
            fixed(a[side].p50, 1),
            fixed(a[side].p99, 1),
          ]),
          `${fixed(a.series.rps / a['one-off'].rps, 2)}×`,
          `${fixed(a.series.p50 / a['one-off'].p50, 2)}×`,
          `${fixed(a.series.p99 / a['one-off'].p99, 2)}×`,
        ]);
      }
    }
    log('');
    log(
      table(
        [
          'request',
          'conn',
          'one-off req/s',
          'p50 ms',
          'p99 ms',
          'series req/s',
          'p50 ms',
          'p99 ms',
          'series/one-off req/s',
          'p50',
          'p99',
        ],
        rows,
      ),
    );
    log(
      `\n${options.rounds} round(s) × ${options.duration} s per set, connection count and database; ` +
        `pinning: ${pinned ? 'servers on core 0, load generator on core 1' : 'none'}; ` +
        `errors/non-2xx ${failed}; finished ${new Date().toISOString()}, load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}; logs in ${logDir}`,
    );
    return failed > 0 ? 1 : 0;
  } finally {
    for (const side of SIDES) await stopServer(servers[side]).catch(() => undefined);
  }
}

export function compareLists(): void {
  main().then(
    async (code) => {
      await stopAll();
      process.exit(code);
    },
    async (error: unknown) => {
      console.error(
        `bench:recurrence --compare-lists: ${error instanceof Error ? error.message : String(error)}`,
      );
      await stopAll();
      process.exit(1);
    },
  );
}
