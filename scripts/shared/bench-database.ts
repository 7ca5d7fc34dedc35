import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The database a bench runs the service on, as the environment it needs: the
 * given MySQL/MariaDB URL as seeded, or an embedded SQLite file that is seeded
 * once with `events` events (seed 7) and reused by later runs.
 */
export function benchDatabaseEnv(options: {
  root: string;
  name: string;
  events: number;
  databaseUrl?: string;
  sqlitePath?: string;
  log: (line: string) => void;
}): { env: Record<string, string>; sqlitePath: string } {
  const sqlitePath =
    options.sqlitePath ?? join(tmpdir(), `${options.name}-${options.events}.sqlite`);
  if (options.databaseUrl) return { env: { DATABASE_URL: options.databaseUrl }, sqlitePath };
  const env = { DATABASE_URL: '', SQLITE_PATH: sqlitePath };
  if (!existsSync(sqlitePath)) {
    options.log(`seeding ${options.events} events into ${sqlitePath}`);
    execFileSync(
      process.execPath,
      [
        ...['-r', 'ts-node/register/transpile-only', 'scripts/seed.ts'],
        ...['--events', String(options.events), '--venues', '200', '--organizers', '200'],
        ...['--seed', '7'],
      ],
      { cwd: options.root, env: { ...process.env, ...env }, stdio: 'inherit' },
    );
  }
  return { env, sqlitePath };
}

/** Benches write and delete: a given database must be one named for them. */
export function assertBenchDatabase(databaseUrl: string): void {
  if (databaseUrl && !new URL(databaseUrl).pathname.includes('bench'))
    throw new Error('--database-url must name a database whose name contains "bench"');
}
