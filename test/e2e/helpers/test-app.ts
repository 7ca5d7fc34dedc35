import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { SignJWT } from 'jose';
import { createConnection } from 'mysql2/promise';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import type { Role } from '../../../src/auth/auth-user';
import { validateResponses } from './openapi-responses';

export const API = '/calendar/events/v1';
export const TEST_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

/** Fixed users of the role table: IDs are the JWT `sub`. */
export const USERS = {
  administrator: { id: 1, role: 'administrator' },
  editor: { id: 2, role: 'editor' },
  author: { id: 3, role: 'author' },
  contributor: { id: 4, role: 'contributor' },
  subscriber: { id: 5, role: 'subscriber' },
  otherAuthor: { id: 6, role: 'author' },
  otherContributor: { id: 7, role: 'contributor' },
} as const satisfies Record<string, { id: number; role: Role }>;

export type UserName = keyof typeof USERS;

export interface TestApp {
  app: INestApplication;
  /** A supertest agent over real HTTP. */
  http: () => TestAgent;
  /** `Authorization` header value for one of USERS. */
  auth: Record<UserName, string>;
  dataSource: DataSource;
  engine: 'sqlite' | 'mysql';
  /** Empties every table (keeps the schema). */
  reset: () => Promise<void>;
  close: () => Promise<void>;
}

export function tokenFor(
  user: { id: number; role: string },
  secret = TEST_SECRET,
  expiresIn = '1h',
): Promise<string> {
  return new SignJWT({ role: user.role })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(user.id))
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

/**
 * Boots AppModule with the same global setup as main.ts, on the engine the
 * jest project selects: an in-memory SQLite database, or the MySQL/MariaDB
 * database of TEST_DATABASE_URL (whose name must contain "test"), emptied.
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const engine = process.env.TEST_ENGINE === 'mysql' ? 'mysql' : 'sqlite';
  const databaseUrl = engine === 'mysql' ? await prepareMysql() : '';
  Object.assign(process.env, {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    AUTH_JWT_SECRET: TEST_SECRET,
    DATABASE_URL: databaseUrl,
    SQLITE_PATH: ':memory:',
    RATE_LIMIT_PER_MINUTE: '0',
    PUBLIC_SITE_URL: 'http://calendar.test',
    DEFAULT_LANGUAGE: 'nl',
    SITE_TIMEZONE: 'UTC',
    API_BASE_PATH: '/',
    ...env,
  });
  // Loaded after the environment is set: ConfigModule validates it at import.
  const { AppModule } = await import('../../../src/app.module');
  const { APP_OPTIONS, configureApp } = await import('../../../src/app.setup');
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication(APP_OPTIONS);
  // Every response is checked against the live /doc (helpers/openapi-responses.ts).
  validateResponses(app);
  configureApp(app);
  await app.init();
  const dataSource = app.get(DataSource);
  const reset = () => emptyTables(dataSource);
  await reset();

  const auth = {} as Record<UserName, string>;
  for (const [name, user] of Object.entries(USERS))
    auth[name as UserName] = `Bearer ${await tokenFor(user)}`;

  return {
    app,
    http: () => request(app.getHttpServer()),
    auth,
    dataSource,
    engine,
    reset,
    close: () => app.close(),
  };
}

/**
 * The MySQL database of this jest run: TEST_DATABASE_URL's database name plus the run's ID
 * (E2E_RUN_ID, set by test/jest-e2e.config.js in jest's main process and inherited by its
 * workers), so parallel runs never empty each other's tables. The global set-up migrates it
 * and the global teardown drops it.
 */
export function mysqlTestUrl(): { url: string; database: string; serverUrl: string } {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set for the mysql project');
  const parsed = new URL(url);
  const base = parsed.pathname.replace(/^\//, '');
  // Tests empty every table: refuse anything that is not plainly a test database.
  if (!/test/i.test(base))
    throw new Error(`Refusing to run tests on "${base}": its name must contain "test"`);
  const database = `${base}_${e2eRunId()}`;
  parsed.pathname = `/${database}`;
  const server = new URL(url);
  server.pathname = '/';
  return { url: parsed.toString(), database, serverUrl: server.toString() };
}

function e2eRunId(): string {
  const id = process.env.E2E_RUN_ID;
  if (!id)
    throw new Error('E2E_RUN_ID is not set: run the e2e suites with test/jest-e2e.config.js');
  return id;
}

async function prepareMysql(): Promise<string> {
  const { url, database, serverUrl } = mysqlTestUrl();
  const connection = await createConnection({ uri: serverUrl });
  await connection.query(
    `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  );
  await connection.end();
  return url;
}

async function emptyTables(dataSource: DataSource): Promise<void> {
  // One connection: FOREIGN_KEY_CHECKS is a session setting.
  const runner = dataSource.createQueryRunner();
  try {
    // data_version is kept and bumped: cached list totals must not survive the reset.
    const tables = dataSource.entityMetadatas
      .map((m) => m.tableName)
      .filter((t) => t !== 'data_version');
    if (dataSource.options.type === 'mysql') {
      await runner.query('SET FOREIGN_KEY_CHECKS = 0');
      // TRUNCATE rebuilds the full-text index: without stop words, as the migration built it.
      await runner.query('SET SESSION innodb_ft_enable_stopword = OFF');
      for (const table of tables) await runner.query(`TRUNCATE TABLE \`${table}\``);
      await runner.query('SET FOREIGN_KEY_CHECKS = 1');
      await runner.query('SET SESSION innodb_ft_enable_stopword = ON');
    } else {
      await runner.query('PRAGMA foreign_keys = OFF');
      for (const table of tables) await runner.query(`DELETE FROM "${table}"`);
      await runner.query(`DELETE FROM sqlite_sequence`).catch(() => undefined);
      await runner.query('PRAGMA foreign_keys = ON');
    }
    await runner.query('UPDATE data_version SET version = version + 1 WHERE id = 1');
  } finally {
    await runner.release();
  }
}

/** The contract's error body, for exact assertions. */
export function errorBody(
  code: string,
  status: number,
  params?: unknown,
  extra: Record<string, unknown> = {},
) {
  return {
    code,
    message: expect.any(String),
    data: { status, ...(params !== undefined ? { params } : {}), ...extra },
  };
}
