import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { ConfigurationError } from '../config/env.validation';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { QueryObserver } from './query-observer';
import { DatabaseLogger, QueryTimeoutSubscriber } from './query-timeout';
import { loadMysqlDriver } from './mysql-driver';
import { loadSqliteDriver } from './sqlite-driver';

export interface DatabaseSettings {
  databaseUrl?: string;
  /**
   * MySQL read replicas. When given, TypeORM's replication sends SELECTs made
   * outside a transaction to a replica (round robin), and every write,
   * transaction and raw query to DATABASE_URL. Empty or unset: one pool.
   */
  databaseReadUrls?: string[];
  sqlitePath: string;
  migrationsRun: boolean;
  /**
   * MySQL only: a query running longer fails (503) and its connection is
   * discarded, so a silent network partition cannot hang the pool for ever.
   * Unset (the CLI and migration script): no limit.
   */
  queryTimeoutMs?: number;
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
    subscribers: [QueryObserver],
  };
  const readUrls = settings.databaseReadUrls ?? [];
  if (settings.databaseUrl) {
    return {
      ...common,
      type: 'mysql',
      driver: loadMysqlDriver(),
      // The options below apply to the primary and every replica alike.
      ...(readUrls.length > 0
        ? {
            replication: {
              master: { url: settings.databaseUrl },
              slaves: readUrls.map((url) => ({ url })),
            },
          }
        : { url: settings.databaseUrl }),
      // utf8mb4_0900_ai_ci does not exist on MariaDB; this collation works on both.
      charset: 'utf8mb4_unicode_ci',
      timezone: 'Z',
      connectTimeout: 5000,
      poolSize: 10,
      ...(settings.queryTimeoutMs
        ? {
            enableQueryTimeout: true,
            maxQueryExecutionTime: settings.queryTimeoutMs,
            subscribers: [...common.subscribers, QueryTimeoutSubscriber],
            // Slow queries are always logged: keep SQL parameters out of the logs.
            logger: new DatabaseLogger(),
          }
        : {}),
      extra: {
        connectionLimit: 10,
        // mysql2 captures a stack trace per query by default (about 0.1 ms each, measured in a
        // list's profile); our errors never show stacks, and its async frames say little anyway.
        trace: false,
        // Idle connections are retired after a minute (mysql2 only does so when
        // maxIdle < connectionLimit), so few outlive a silent network change.
        maxIdle: 5,
        idleTimeout: 60_000,
        // TCP keep-alive probes from 10 s of idleness detect peers that vanished.
        enableKeepAlive: true,
        keepAliveInitialDelay: 10_000,
      },
    };
  }
  if (readUrls.length > 0) {
    // Also caught by validateEnvironment; this guards other callers.
    throw new ConfigurationError(
      'DATABASE_READ_URLS needs a MySQL DATABASE_URL: read replicas do not apply to the embedded SQLite database',
    );
  }
  if (settings.sqlitePath !== ':memory:')
    mkdirSync(dirname(settings.sqlitePath), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    driver: loadSqliteDriver(),
    database: settings.sqlitePath,
    // WAL lets readers run during a write; busy_timeout waits for the write lock instead of failing.
    // synchronous=NORMAL: no fsync per COMMIT (2–3 ms each here, blocking the event loop); a
    // commit still survives the process dying, only a power loss may take the last ones.
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
    },
  };
}
