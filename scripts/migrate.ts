/**
 * Applies or reverts schema migrations on the configured database, with the
 * same settings as the service (DATABASE_URL, else SQLITE_PATH).
 *
 *   npm run migration:run      apply every pending migration, each in its own transaction
 *   npm run migration:revert   revert the most recently applied migration
 *
 * Reads the environment, then a `.env` file in the working directory if there
 * is one (variables already set win).
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { MigrationExecutor } from 'typeorm';
import { ConfigurationError, validateEnvironment } from '../src/config/env.validation';

type Command = 'run' | 'revert';

function target(): string {
  const url = process.env.DATABASE_URL;
  if (url) return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
  return `sqlite ${process.env.SQLITE_PATH || './data/calendar.sqlite'}`;
}

async function main(command: Command): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  validateEnvironment(process.env);
  // Imported only now: the data source reads the environment when it loads.
  const { default: dataSource } = await import('../src/database/data-source');

  await dataSource.initialize();
  try {
    if (command === 'run') {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      for (const migration of applied) console.log(`applied  ${migration.name}`);
      console.log(
        applied.length > 0
          ? `${applied.length} migration(s) applied to ${target()}`
          : `${target()} is up to date: no pending migrations`,
      );
    } else {
      const executor = new MigrationExecutor(dataSource);
      const before = await executor.getExecutedMigrations();
      await dataSource.undoLastMigration();
      const after = new Set((await executor.getExecutedMigrations()).map((m) => m.name));
      const reverted = before.filter((m) => !after.has(m.name));
      for (const migration of reverted) console.log(`reverted ${migration.name}`);
      if (reverted.length === 0) console.log(`${target()} has no applied migrations to revert`);
    }
  } finally {
    await dataSource.destroy();
  }
}

const command = process.argv[2];
if (command !== 'run' && command !== 'revert') {
  console.error('usage: ts-node scripts/migrate.ts run|revert');
  process.exit(1);
}
main(command).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  const prefix = error instanceof ConfigurationError ? 'Configuration error' : 'Migration failed';
  console.error(`${prefix}: ${message}`);
  process.exit(1);
});
