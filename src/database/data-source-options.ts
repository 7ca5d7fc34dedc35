import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export interface DatabaseSettings {
  databaseUrl?: string;
  sqlitePath: string;
  migrationsRun: boolean;
}

/**
 * MySQL/MariaDB through mysql2 when DATABASE_URL is set; otherwise the
 * embedded SQLite file, so the service starts with zero setup.
 */
export function dataSourceOptions(settings: DatabaseSettings): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: settings.migrationsRun,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    logging: false,
  };
  if (settings.databaseUrl) {
    return {
      ...common,
      type: 'mysql',
      url: settings.databaseUrl,
      // utf8mb4_0900_ai_ci does not exist on MariaDB; this collation works on both.
      charset: 'utf8mb4_unicode_ci',
      timezone: 'Z',
      connectTimeout: 5000,
      poolSize: 10,
      extra: { connectionLimit: 10, enableKeepAlive: true },
    };
  }
  if (settings.sqlitePath !== ':memory:')
    mkdirSync(dirname(settings.sqlitePath), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: settings.sqlitePath,
    // WAL lets readers run during a write; busy_timeout waits for the write lock instead of failing.
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
    },
  };
}
