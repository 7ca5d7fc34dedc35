// Makes this run's MySQL test database (see mysqlTestUrl in helpers/test-app.ts) and runs
// every migration once, before the first suite and outside any test's time limit: under
// load the first suite's set-up could pass 60 s and leave a migration cut off half-way,
// failing every later suite. The suites then find nothing left to migrate.
const { createConnection } = require('mysql2/promise');

module.exports = async () => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const parsed = new URL(url);
  const base = parsed.pathname.replace(/^\//, '');
  if (!/test/i.test(base)) return; // mysqlTestUrl refuses it with a clear message
  const database = `${base}_${process.env.E2E_RUN_ID}`;
  const server = new URL(url);
  server.pathname = '/';
  const connection = await createConnection({ uri: server.toString() });
  await connection.query(
    `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  );
  await connection.end();

  // The migrations are TypeScript: compiled here without type checks, as ts-jest does for the suites.
  require('ts-node').register({
    transpileOnly: true,
    project: require('node:path').resolve(__dirname, '../../../tsconfig.json'),
  });
  require('reflect-metadata');
  const { DataSource } = require('typeorm');
  const { dataSourceOptions } = require('../../../src/database/data-source-options');
  parsed.pathname = `/${database}`;
  const dataSource = new DataSource(
    dataSourceOptions({
      databaseUrl: parsed.toString(),
      sqlitePath: ':memory:',
      migrationsRun: false,
    }),
  );
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
};
