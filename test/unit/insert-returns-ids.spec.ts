import type { EntityManager } from 'typeorm';
import { insertReturnsIds, mariaDbTakesReturning } from '../../src/database/entity-inserts';
import { InsertReturning } from '../../src/writes/insert-returning';

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

describe('InsertReturning', () => {
  /** A MariaDB manager that counts its VERSION() questions and fails the first `failures`. */
  const countingManager = (failures = 0) => {
    const asked = { count: 0 };
    const manager = {
      connection: { options: { type: 'mysql' } },
      query: () => {
        asked.count += 1;
        if (asked.count <= failures) return Promise.reject(new Error('connection lost'));
        return Promise.resolve([{ version: '10.11.19-MariaDB' }]);
      },
    } as unknown as EntityManager;
    return { manager, asked };
  };
  const insertReturning = (portableSql: boolean) =>
    new InsertReturning({ portableSql } as ConstructorParameters<typeof InsertReturning>[0]);

  it('asks the server once for every writer', async () => {
    const { manager, asked } = countingManager();
    const shared = insertReturning(false);
    expect(await Promise.all([shared.available(manager), shared.available(manager)])).toEqual([
      true,
      true,
    ]);
    expect(await shared.available(manager)).toBe(true);
    expect(asked.count).toBe(1);
  });

  it('asks again after a failed question instead of keeping the failure', async () => {
    const { manager, asked } = countingManager(1);
    const shared = insertReturning(false);
    await expect(shared.available(manager)).rejects.toThrow('connection lost');
    expect(await shared.available(manager)).toBe(true);
    expect(asked.count).toBe(2);
  });

  it('is false under DATABASE_PORTABLE_SQL without asking the server', async () => {
    const { manager, asked } = countingManager();
    expect(await insertReturning(true).available(manager)).toBe(false);
    expect(asked.count).toBe(0);
  });
});
