import { loadSqliteDriver } from '../../src/database/sqlite-driver';

// Node 20 takes better-sqlite3 12; Node ≥ 22 takes 13 (12 aborts on Node 24).
describe('loadSqliteDriver', () => {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const line12 = require('better-sqlite3');
  const line13 = require('better-sqlite3-node22');
  const version12 = require('better-sqlite3/package.json').version;
  const version13 = require('better-sqlite3-node22/package.json').version;
  /* eslint-enable @typescript-eslint/no-require-imports */

  it('gives the two lines as different modules', () => {
    expect(version12).toMatch(/^12\./);
    expect(version13).toMatch(/^13\./);
    expect(line12).not.toBe(line13);
  });

  it.each(['20.19.0', '20.20.2', '21.7.3'])('loads 12 on Node %s', (version) => {
    expect(loadSqliteDriver(version)).toBe(line12);
  });

  it.each(['22.12.0', '24.21.0', '26.0.0'])('loads 13 on Node %s', (version) => {
    expect(loadSqliteDriver(version)).toBe(line13);
  });

  it('opens a database with the build for the running Node', () => {
    const Database = loadSqliteDriver() as new (path: string) => {
      prepare(sql: string): { get(): unknown };
      close(): void;
    };
    const db = new Database(':memory:');
    expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    db.close();
  });
});
