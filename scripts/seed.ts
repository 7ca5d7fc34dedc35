/**
 * Fills the configured database (DATABASE_URL, else SQLITE_PATH) with
 * generated calendar data in both languages, for benchmarks and demos.
 *
 *   npm run seed -- --events 1000000 --venues 10000 --organizers 10000 \
 *                   --categories 50 --tags 200 [--seed 42] [--reset [--force]]
 *   npm run seed -- --events 0 --series 10000 …   # recurring series with their occurrences
 *
 * `--series N` adds N recurring series after the one-off events (docs/api.md
 * §16): each series row with its RFC 5545 `recurrence` lines and its
 * occurrences up to RECURRENCE_HORIZON_MONTHS (24) ahead, written as the
 * service writes them (about 100 occurrences per series on average).
 * Applies pending migrations first. The tables must be empty, or `--reset`
 * empties them (only on a database whose name or file path contains "test" or
 * "bench", unless `--force`). The same options, seed and `--today` give the
 * same rows. Password-protected events (about 2 %) use the password "secret"
 * (`--password`), hashed with the key the service derives from AUTH_JWT_SECRET.
 *
 * Reads the environment, then a `.env` file in the working directory if there
 * is one (variables already set win).
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { ConfigurationError, validateEnvironment } from '../src/config/env.validation';
import { DEFAULTS, makePlan } from './seed/plan';
import { emptyTables, nonEmptyTables, seedDatabase } from './seed/seed-database';

interface Args {
  events: number;
  series: number;
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
  seed: number;
  today?: string;
  password: string;
  batch: number;
  rowsPerStatement: number;
  reset: boolean;
  force: boolean;
}

const USAGE = `usage: npm run seed -- [--events N] [--series N] [--venues N] [--organizers N] [--categories N]
                     [--tags N] [--seed N] [--today YYYY-MM-DD] [--password TEXT]
                     [--batch N] [--rows-per-statement N] [--reset] [--force]
defaults: --events ${DEFAULTS.events} --series ${DEFAULTS.series} --venues ${DEFAULTS.venues} --organizers ${DEFAULTS.organizers} \
--categories ${DEFAULTS.categories} --tags ${DEFAULTS.tags} --seed ${DEFAULTS.seed} --batch 5000`;

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    events: DEFAULTS.events,
    series: DEFAULTS.series,
    venues: DEFAULTS.venues,
    organizers: DEFAULTS.organizers,
    categories: DEFAULTS.categories,
    tags: DEFAULTS.tags,
    seed: DEFAULTS.seed,
    password: DEFAULTS.password,
    batch: 5000,
    rowsPerStatement: 2000,
    reset: false,
    force: false,
  };
  const counts = {
    '--events': 'events',
    '--series': 'series',
    '--venues': 'venues',
    '--organizers': 'organizers',
    '--categories': 'categories',
    '--tags': 'tags',
    '--seed': 'seed',
    '--batch': 'batch',
    '--rows-per-statement': 'rowsPerStatement',
  } as const;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === '--reset') args.reset = true;
    else if (flag === '--force') args.force = true;
    else if (flag === '--today') {
      args.today = value();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(args.today) || Number.isNaN(Date.parse(args.today)))
        throw new UsageError('--today must be a date YYYY-MM-DD');
    } else if (flag === '--password') args.password = value();
    else if (flag in counts) {
      const text = value().replace(/_/g, '');
      const n = Number(text);
      if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n > 2 ** 31 - 1)
        throw new UsageError(`${flag} must be a non-negative integer, not "${text}"`);
      args[counts[flag as keyof typeof counts]] = n;
    } else throw new UsageError(`unknown option ${argv[i]}`);
  }
  if (args.batch < 1 || args.rowsPerStatement < 1)
    throw new UsageError('--batch and --rows-per-statement must be positive');
  return args;
}

/** What the data source writes to, for messages and the reset guard (no password). */
function target(): { label: string; name: string } {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
    return { label: url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@'), name };
  }
  const file = process.env.SQLITE_PATH || './data/calendar.sqlite';
  return { label: `sqlite ${file}`, name: file };
}

/** Creates the MySQL database of DATABASE_URL when it does not exist yet. */
async function ensureMysqlDatabase(url: string): Promise<void> {
  const { createConnection } = await import('mysql2/promise');
  const server = new URL(url);
  const name = decodeURIComponent(server.pathname.replace(/^\//, ''));
  server.pathname = '/';
  const connection = await createConnection({ uri: server.toString() });
  try {
    const [rows] = await connection.query('SHOW DATABASES LIKE ?', [name]);
    if ((rows as unknown[]).length === 0) {
      await connection.query(
        `CREATE DATABASE ${connection.escapeId(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
      console.log(`created database ${name}`);
    }
  } finally {
    await connection.end();
  }
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const args = parseArgs(argv);
  if (existsSync('.env')) process.loadEnvFile('.env');
  validateEnvironment(process.env);
  const where = target();
  if (process.env.DATABASE_URL) await ensureMysqlDatabase(process.env.DATABASE_URL);
  // Imported only now: the data source reads the environment when it loads.
  const { default: dataSource } = await import('../src/database/data-source');

  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    if (applied.length > 0) console.log(`applied ${applied.length} migration(s) to ${where.label}`);

    const filled = await nonEmptyTables(dataSource);
    if (filled.length > 0) {
      if (!args.reset)
        throw new UsageError(
          `${where.label} already holds data (${filled.join(', ')}): pass --reset to replace it`,
        );
      if (!/test|bench/i.test(where.name) && !args.force)
        throw new UsageError(
          `refusing to empty ${where.label}: its name does not contain "test" or "bench" (--force to insist)`,
        );
      await emptyTables(dataSource);
      console.log(`emptied the tables of ${where.label}`);
    }

    const plan = makePlan({
      ...args,
      horizonMonths: Number(process.env.RECURRENCE_HORIZON_MONTHS || DEFAULTS.horizonMonths),
      jwtSecret: process.env.AUTH_JWT_SECRET,
    });
    console.log(
      `seeding ${where.label}: ${plan.events} events, ${plan.series} series, ${plan.venues} venues, ${plan.organizers} organizers, ` +
        `${plan.categories} categories, ${plan.tags} tags (seed ${plan.seed}, ` +
        `today ${new Date(plan.now * 1000).toISOString().slice(0, 10)})`,
    );
    const result = await seedDatabase(dataSource, plan, {
      batchEvents: args.batch,
      rowsPerStatement: args.rowsPerStatement,
      log: (line) => console.log(line),
    });
    const counts = Object.entries(result.counts)
      .reverse()
      .map(([table, n]) => `${table} ${n}`)
      .join(', ');
    console.log(
      `done: ${counts}; ${result.rows} rows in ${result.seconds.toFixed(1)} s ` +
        `(${Math.round(result.rows / result.seconds)} rows/s)`,
    );
  } finally {
    await dataSource.destroy();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) console.error(`${message}\n${USAGE}`);
  else {
    const prefix = error instanceof ConfigurationError ? 'Configuration error' : 'Seed failed';
    console.error(`${prefix}: ${message}`);
  }
  process.exit(1);
});
