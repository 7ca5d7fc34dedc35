import type { EntityManager } from 'typeorm';
import { insertReturnsIds } from '../../src/database/entity-rows';

/** A manager on an engine of this type whose server reported this version. */
const managerOf = (type: string, version?: string) =>
  ({ connection: { options: { type }, driver: { version } } }) as unknown as EntityManager;

describe('insertReturnsIds', () => {
  it('is true on SQLite and on MariaDB from 10.5', () => {
    expect(insertReturnsIds(managerOf('better-sqlite3'))).toBe(true);
    expect(insertReturnsIds(managerOf('mysql', '10.11.19-MariaDB-0+deb12u1'))).toBe(true);
    expect(insertReturnsIds(managerOf('mysql', '10.5.0-MariaDB'))).toBe(true);
    expect(insertReturnsIds(managerOf('mysql', '11.4.2-MariaDB-log'))).toBe(true);
  });

  it('is false on MySQL, older MariaDB and a server whose version is unknown', () => {
    expect(insertReturnsIds(managerOf('mysql', '8.0.36'))).toBe(false);
    expect(insertReturnsIds(managerOf('mysql', '8.4.2-TiDB-v8.1.0'))).toBe(false);
    expect(insertReturnsIds(managerOf('mysql', '10.4.32-MariaDB'))).toBe(false);
    expect(insertReturnsIds(managerOf('mysql', undefined))).toBe(false);
  });
});
