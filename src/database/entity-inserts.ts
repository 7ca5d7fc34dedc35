import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { columnOf, type InsertShape, placeholders, shapeOf } from './entity-rows';

/*
 * Writes of whole rows through one plain INSERT each, from TypeORM's metadata
 * (the columns and value conversions of entity-rows' reads).
 */

/**
 * Inserts rows in one plain `INSERT … VALUES (…), (…)` of the given
 * properties, converted as TypeORM would (column transformers; booleans as
 * 1/0, which both drivers accept): for bulk writes, where the query builder
 * spent longer building the statement than the database took to run it.
 * Inside a transaction pass its manager.
 */
export async function insertRows<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  properties: ReadonlyArray<keyof E & string>,
  rows: ReadonlyArray<Partial<E>>,
): Promise<void> {
  if (rows.length === 0) return;
  await manager.query(...insertStatement(manager, target, properties, rows));
}

/**
 * Inserts one row of the properties `values` sets (those left undefined take
 * their column defaults) and returns its generated ID: one statement, where
 * TypeORM's save() reads the new row's defaults back in a second one.
 */
export async function insertRow<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  values: Partial<E>,
): Promise<number> {
  const properties = (Object.keys(values) as Array<keyof E & string>).filter(
    (property) => values[property] !== undefined,
  );
  return insertedId(await manager.query(...insertStatement(manager, target, properties, [values])));
}

/**
 * Whether the server answers `INSERT … RETURNING`: SQLite (≥ 3.35) and
 * MariaDB ≥ 10.5 do; MySQL 8 does not (nor TiDB or Vitess). Asked of the
 * server's `VERSION()`, whose text names MariaDB (TypeORM keeps only its
 * digits); a MySQL-compatible server of another flavour is taken to lack it.
 */
export async function insertReturnsIds(manager: EntityManager): Promise<boolean> {
  if (manager.connection.options.type === 'better-sqlite3') return true;
  const [row] = (await manager.query('SELECT VERSION() AS version')) as Array<{ version: string }>;
  return mariaDbTakesReturning(String(row?.version ?? ''));
}

/** Whether a `VERSION()` text names MariaDB 10.5 or later. */
export function mariaDbTakesReturning(version: string): boolean {
  const parts = /^(\d+)\.(\d+)\.\d+-[^ ]*mariadb/i.exec(version);
  return parts !== null && Number(parts[1]) * 100 + Number(parts[2]) >= 1005;
}

/**
 * insertRows that returns the new rows' generated IDs, in the rows' order:
 * `INSERT … RETURNING` (only where insertReturnsIds says the engine takes it). Rows
 * are inserted in order, so their IDs ascend with it whatever the engine's
 * auto-increment lock mode.
 */
export async function insertRowsReturningIds<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  properties: ReadonlyArray<keyof E & string>,
  rows: ReadonlyArray<Partial<E>>,
): Promise<number[]> {
  if (rows.length === 0) return [];
  const [sql, params] = insertStatement(manager, target, properties, rows);
  const id = manager.connection.driver.escape(
    columnOf(shapeOf(manager, target), 'id').databaseName,
  );
  const returned = (await manager.query(`${sql} RETURNING ${id} AS id`, params)) as Array<{
    id: number | string;
  }>;
  if (!Array.isArray(returned) || returned.length !== rows.length)
    throw new Error(
      `INSERT … RETURNING gave ${String(returned?.length)} IDs for ${rows.length} rows`,
    );
  return returned.map((row) => Number(row.id)).sort((a, b) => a - b);
}

/** The ID of the row a single-row INSERT made: mysql2's OK packet, or better-sqlite3's rowid. */
export function insertedId(result: unknown): number {
  return Number(
    typeof result === 'object' && result !== null && 'insertId' in result
      ? (result as { insertId: number | string }).insertId
      : (result as number | bigint),
  );
}

function insertStatement<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  properties: ReadonlyArray<keyof E & string>,
  rows: ReadonlyArray<Partial<E>>,
): [string, unknown[]] {
  const { fields, head, row } = insertShapeOf(manager, target, properties);
  const sql = head + rows.map(() => row).join(', ');
  const params: unknown[] = [];
  for (const values of rows)
    for (const { property, to } of fields) {
      const value: unknown = to ? to(values[property]) : values[property];
      params.push(typeof value === 'boolean' ? (value ? 1 : 0) : (value ?? null));
    }
  return [sql, params];
}

/** How many INSERT shapes are kept per entity (insertShapeOf). */
const MAX_INSERT_SHAPES = 256;

/**
 * The columns and SQL of an INSERT of `properties`, worked out once per list
 * of properties (a write inserts the same few lists over and over; finding
 * each property's column and escaping its name cost more than the rest).
 * insertRow's lists follow the fields a body sends, so at most
 * MAX_INSERT_SHAPES are kept per entity: past it the kept ones are dropped.
 */
function insertShapeOf<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  properties: ReadonlyArray<keyof E & string>,
): InsertShape {
  const shape = shapeOf(manager, target);
  const key = properties.join(',');
  let insert = shape.inserts.get(key);
  if (!insert) {
    const { driver } = manager.connection;
    const columns = properties.map((property) => columnOf(shape, property));
    insert = {
      fields: columns.map((column) => {
        const transformer = Array.isArray(column.transformer) ? undefined : column.transformer;
        return { property: column.propertyName, to: transformer?.to.bind(transformer) };
      }),
      head:
        `INSERT INTO ${driver.escape(shape.metadata.tableName)} ` +
        `(${columns.map((column) => driver.escape(column.databaseName)).join(', ')}) VALUES `,
      row: `(${placeholders(columns.length)})`,
    };
    if (shape.inserts.size >= MAX_INSERT_SHAPES) shape.inserts.clear();
    shape.inserts.set(key, insert);
  }
  return insert;
}
