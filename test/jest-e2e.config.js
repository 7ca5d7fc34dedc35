// Every e2e test runs on the embedded SQLite database and, when TEST_DATABASE_URL
// names a MySQL/MariaDB test database, on that one too (CI sets it).
// Names this run's MySQL test database (mysqlTestUrl in helpers/test-app.ts). Set here, in
// jest's main process, so the global set-up and teardown and every worker see the same ID.
process.env.E2E_RUN_ID ||= String(process.pid);

const swaggerPlugin = { path: '<rootDir>/test/swagger-plugin-transformer.js' };

const base = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: require('node:path').resolve(__dirname, '..'),
  testRegex: 'test/e2e/.*\\.e2e-spec\\.ts$',
  transform: {
    '^.+\\.ts$': ['ts-jest', { astTransformers: { before: [swaggerPlugin] }, diagnostics: false }],
  },
  testEnvironment: 'node',
  testTimeout: 60000,
  // Fails a test whose responses differ from the live /doc (helpers/openapi-responses.ts).
  setupFilesAfterEnv: [
    '<rootDir>/test/e2e/setup/openapi-responses.ts',
    '<rootDir>/test/e2e/setup/has-assertions.ts',
  ],
};

const projects = [
  { ...base, displayName: 'sqlite', setupFiles: ['<rootDir>/test/e2e/setup/engine-sqlite.js'] },
];
if (process.env.TEST_DATABASE_URL) {
  projects.push({
    ...base,
    displayName: 'mysql',
    setupFiles: ['<rootDir>/test/e2e/setup/engine-mysql.js'],
  });
}

module.exports = {
  projects,
  // A global option: ignored inside projects.
  testTimeout: 60000,
  // Per-engine counts for CI (E2E_SUMMARY_FILE), which fails when one engine's half did not run.
  reporters: ['default', require('node:path').resolve(__dirname, 'e2e/setup/engine-summary.js')],
  // The suites run one at a time (npm run test:e2e: --maxWorkers=1) in a worker, not in jest's
  // main process: a file's app, modules and compiled code are not all freed when it ends, and in
  // one process for every suite the heap passed 3.7 GB and aborted (CI, Node 20). The worker is
  // replaced when it holds more than this after a file.
  workerIdleMemoryLimit: '1GB',
  globalSetup: require('node:path').resolve(__dirname, 'e2e/setup/migrate-mysql-database.js'),
  globalTeardown: require('node:path').resolve(__dirname, 'e2e/setup/drop-mysql-database.js'),
};
