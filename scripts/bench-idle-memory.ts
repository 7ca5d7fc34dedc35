/**
 * The service's memory at rest (issue 28 §3: ≤ 100 MB RSS idle after start):
 * starts the built service (`dist/main.js`) several times per Node binary and
 * database engine, waits until `/health/ready` first answers 200, then reads
 * the process's resident memory from /proc (Linux only) after each given delay.
 *
 *   npm run bench:memory -- [--node /path/to/node,/path/to/other/node] [--starts 3]
 *                           [--engines sqlite,mysql --database-url mysql://…/calendar_…_bench]
 *                           [--at 2,30]
 *
 * SQLite: a new database file per start (migrations run at start-up, as on a
 * first install). MySQL/MariaDB: the given database as it is (the service
 * runs pending migrations and its background jobs, as in production). RSS is
 * what the OS counts (`VmRSS`): private memory (`RssAnon`) plus the pages of
 * files, the `node` binary first, that the process has touched (`RssFile`,
 * shared with other processes that map the same file).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { serviceReady, startServer, stopServer } from './bench/processes';
import { assertBenchDatabase } from './shared/bench-database';
import { ensureBuilt, freePort } from './shared/process-tools';

const ROOT = resolve(__dirname, '..');
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Resident memory of a process in MB, from /proc/<pid>/status. */
interface Resident {
  rss: number;
  anon: number;
  file: number;
}

function residentOf(pid: number): Resident {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024 };
}

function nodeVersion(node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

interface Sample extends Resident {
  node: string;
  engine: string;
  start: number;
  atSeconds: number;
}

async function startOnce(options: {
  node: string;
  engine: 'sqlite' | 'mysql';
  databaseUrl: string;
  entry: string;
  at: number[];
}): Promise<Resident[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-idle-memory-'));
  const database =
    options.engine === 'mysql'
      ? { DATABASE_URL: options.databaseUrl }
      : { DATABASE_URL: '', SQLITE_PATH: join(dir, 'calendar.sqlite') };
  const port = await freePort();
  const service = await startServer({
    name: 'service',
    port,
    node: options.node,
    args: [options.entry],
    env: {
      ...process.env,
      ...database,
      PORT: String(port),
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      AUTH_JWT_SECRET: 'calendar-bench-secret-long-enough-for-hs256-0123456789',
    },
    logFile: join(dir, 'service.log'),
    ready: serviceReady,
  });
  const samples: Resident[] = [];
  try {
    let waited = 0;
    for (const seconds of options.at) {
      await new Promise((done) => setTimeout(done, (seconds - waited) * 1000));
      waited = seconds;
      samples.push(residentOf(service.pid));
    }
  } finally {
    await stopServer(service);
    rmSync(dir, { recursive: true, force: true });
  }
  return samples;
}

const range = (values: number[]) => {
  const low = Math.min(...values).toFixed(1);
  const high = Math.max(...values).toFixed(1);
  return low === high ? `${low}` : `${low}–${high}`;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      node: { type: 'string', default: process.execPath },
      starts: { type: 'string', default: '3' },
      engines: { type: 'string', default: 'sqlite' },
      'database-url': { type: 'string', default: '' },
      at: { type: 'string', default: '2' },
    },
  });
  const nodes = values.node.split(',').filter(Boolean);
  const engines = values.engines.split(',').filter(Boolean) as ('sqlite' | 'mysql')[];
  const databaseUrl = values['database-url'];
  const at = values.at.split(',').map(Number);
  const starts = Number(values.starts);
  if (engines.some((e) => e !== 'sqlite' && e !== 'mysql')) throw new Error('--engines: sqlite, mysql');
  if (engines.includes('mysql') && !databaseUrl) throw new Error('--engines mysql needs --database-url');
  if (at.some((s, i) => !(s >= 0) || (i > 0 && s < at[i - 1])))
    throw new Error('--at: seconds after ready, ascending');
  assertBenchDatabase(databaseUrl);

  const entry = ensureBuilt(ROOT, log);
  const samples: Sample[] = [];
  const loadBefore = loadavg()[0];
  const startedAt = new Date();
  // Starts alternate between the Node binaries and engines, so a change of load touches all alike.
  for (let start = 1; start <= starts; start++) {
    for (const node of nodes) {
      for (const engine of engines) {
        const version = nodeVersion(node);
        const measured = await startOnce({ node, engine, databaseUrl, entry, at });
        measured.forEach((resident, i) =>
          samples.push({ ...resident, node: version, engine, start, atSeconds: at[i] }),
        );
        log(
          `${version} ${engine} start ${start}: ` +
            measured.map((r, i) => `${at[i]} s ${r.rss.toFixed(1)} MB`).join(', '),
        );
      }
    }
  }
  const where = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : '';
  console.log(
    `${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, load average ` +
      `${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}; ${starts} starts each; ` +
      `sqlite: a new database per start${where ? `; mysql: ${where}` : ''}`,
  );
  console.log('| node | engine | after ready | RSS MB | private (RssAnon) | file pages (RssFile) | per start |');
  console.log('|---|---|---:|---:|---:|---:|---|');
  for (const version of new Set(samples.map((s) => s.node))) {
    for (const engine of engines) {
      for (const seconds of at) {
        const mine = samples.filter(
          (s) => s.node === version && s.engine === engine && s.atSeconds === seconds,
        );
        console.log(
          `| ${version} | ${engine} | ${seconds} s | ${range(mine.map((s) => s.rss))} | ` +
            `${range(mine.map((s) => s.anon))} | ${range(mine.map((s) => s.file))} | ` +
            `${mine.map((s) => s.rss.toFixed(1)).join(' · ')} |`,
        );
      }
    }
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
