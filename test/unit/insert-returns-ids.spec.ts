import type { EntityManager } from 'typeorm';
import { insertReturnsIds, mariaDbTakesReturning } from '../../src/database/entity-inserts';

/** A manager on an engine of this type whose server answers VERSION() with `version`. */
const managerOf = (type: string, version = '') =>
  ({
    connection: { options: { type } },
    query: (sql: string) => {
      expect(sql).toBe('SELECT VERSION() AS version');
      return Promise.resolve([{ version }]);
    },
  }) as unknown as EntityManager;

describe('insertReturnsIds', () => {
  it('is true on SQLite and on MariaDB from 10.5, by the server version text', async () => {
    expect(await insertReturnsIds(managerOf('better-sqlite3'))).toBe(true);
    expect(await insertReturnsIds(managerOf('mysql', '10.11.19-MariaDB-0+deb12u1'))).toBe(true);
  });

  it('is false on MySQL 8 and any server that does not say it is MariaDB', async () => {
    expect(await insertReturnsIds(managerOf('mysql', '8.0.36'))).toBe(false);
    expect(await insertReturnsIds(managerOf('mysql', '8.4.2-TiDB-v8.1.0'))).toBe(false);
  });
});

describe('mariaDbTakesReturning', () => {
  it.each([
    ['10.11.19-MariaDB-0+deb12u1', true],
    ['10.5.0-MariaDB', true],
    ['11.4.2-MariaDB-log', true],
    ['10.4.32-MariaDB', false],
    ['10.11.19', false], // TypeORM's digits-only form names no flavour
    ['8.0.36', false],
    ['5.7.44-log', false],
    ['', false],
  ])('%p → %p', (version, expected) => {
    expect(mariaDbTakesReturning(version)).toBe(expected);
  });
});
