import 'reflect-metadata';
import { DataSource } from 'typeorm';
import type { MysqlDataSourceOptions } from 'typeorm/driver/mysql/MysqlDataSourceOptions';
import { appConfig } from '../../src/config/app.config';
import { ConfigurationError, validateEnvironment } from '../../src/config/env.validation';
import { dataSourceOptions } from '../../src/database/data-source-options';

const PRIMARY = 'mysql://app:secret@db-primary:3306/calendar';
const REPLICAS = ['mysql://reader:secret@db-r1:3306/calendar', 'mysql://reader:secret@db-r2/calendar'];

function mysqlOptions(settings: Parameters<typeof dataSourceOptions>[0]): MysqlDataSourceOptions {
  const options = dataSourceOptions(settings);
  if (options.type !== 'mysql') throw new Error(`expected mysql options, got ${options.type}`);
  return options;
}

describe('data source options: read replicas', () => {
  const base = { databaseUrl: PRIMARY, sqlitePath: ':memory:', migrationsRun: true };

  it('uses one pool on DATABASE_URL without read URLs', () => {
    for (const databaseReadUrls of [undefined, []]) {
      const options = mysqlOptions({ ...base, databaseReadUrls });
      expect(options.url).toBe(PRIMARY);
      expect(options.replication).toBeUndefined();
    }
  });

  it('sends writes to DATABASE_URL and reads to the replicas, with the shared options on both', () => {
    const plain = mysqlOptions({ ...base, queryTimeoutMs: 30000 });
    const replicated = mysqlOptions({ ...base, queryTimeoutMs: 30000, databaseReadUrls: REPLICAS });
    expect(replicated.url).toBeUndefined();
    expect(replicated.replication).toEqual({
      master: { url: PRIMARY },
      slaves: REPLICAS.map((url) => ({ url })),
    });
    // Everything else (charset, time zone, pool, keep-alive, query timeout, migrations) is unchanged.
    const { url: _url, ...plainRest } = plain;
    const { replication: _replication, ...replicatedRest } = replicated;
    expect(replicatedRest).toEqual(plainRest);
    expect(replicatedRest).toEqual(
      expect.objectContaining({
        charset: 'utf8mb4_unicode_ci',
        timezone: 'Z',
        enableQueryTimeout: true,
        maxQueryExecutionTime: 30000,
        migrationsRun: true,
      }),
    );
  });

  it('is read by TypeORM as replication with SELECTs on the replicas by default', () => {
    // Not initialized: no connection is made.
    const dataSource = new DataSource(mysqlOptions({ ...base, databaseReadUrls: REPLICAS }));
    expect((dataSource.driver as unknown as { isReplicated: boolean }).isReplicated).toBe(true);
    expect(dataSource.defaultReplicationModeForReads()).toBe('slave');
    expect(dataSource.driver.database).toBe('calendar');
  });

  it('refuses read URLs with the embedded SQLite database', () => {
    const build = () =>
      dataSourceOptions({ sqlitePath: ':memory:', migrationsRun: true, databaseReadUrls: REPLICAS });
    expect(build).toThrow(ConfigurationError);
    expect(build).toThrow(/^DATABASE_READ_URLS needs a MySQL DATABASE_URL/);
  });
});

describe('DATABASE_READ_URLS validation', () => {
  const check = (env: Record<string, string>) => () => validateEnvironment(env);

  it('accepts a comma list of mysql URLs (spaces and empty entries ignored) with a MySQL DATABASE_URL', () => {
    expect(
      check({ DATABASE_URL: PRIMARY, DATABASE_READ_URLS: ` ${REPLICAS[0]} ,${REPLICAS[1]},` }),
    ).not.toThrow();
    expect(check({ DATABASE_READ_URLS: '' })).not.toThrow();
  });

  it('names the bad entry by position, never echoing credentials', () => {
    const run = check({
      DATABASE_URL: PRIMARY,
      DATABASE_READ_URLS: `${REPLICAS[0]},postgres://reader:hunter2@db-r2/calendar`,
    });
    expect(run).toThrow(ConfigurationError);
    expect(run).toThrow(/^DATABASE_READ_URLS must be a comma list of mysql:\/\/.* \(entry 2 is not\)$/);
    expect(run).not.toThrow(/hunter2/);
  });

  it('refuses read URLs without a MySQL DATABASE_URL (embedded SQLite) with one clear line', () => {
    expect(check({ DATABASE_READ_URLS: REPLICAS[0] })).toThrow(
      'DATABASE_READ_URLS needs a MySQL DATABASE_URL: read replicas do not apply to the embedded SQLite database',
    );
  });

  it('is read into the typed config as a list', () => {
    const saved = process.env.DATABASE_READ_URLS;
    try {
      process.env.DATABASE_READ_URLS = `${REPLICAS[0]}, ${REPLICAS[1]}`;
      expect(appConfig().databaseReadUrls).toEqual(REPLICAS);
      delete process.env.DATABASE_READ_URLS;
      expect(appConfig().databaseReadUrls).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.DATABASE_READ_URLS;
      else process.env.DATABASE_READ_URLS = saved;
    }
  });
});
