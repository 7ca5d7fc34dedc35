import type { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/*
 * Reads of whole rows by a list of keys, as entities, through one plain SELECT
 * each: the columns and value conversions of TypeORM's find(), without its
 * query builder and join-aware hydration, which cost more CPU than the
 * queries themselves on a list page (docs/performance.md). Used for the
 * records and links of list pages and single reads; anything with filters
 * stays on the query builder.
 */

interface RowShape {
  metadata: EntityMetadata;
  columns: ColumnMetadata[];
  /** `SELECT <every column> FROM <table>` */
  select: string;
}

const shapes = new WeakMap<EntityMetadata, RowShape>();

function shapeOf(manager: EntityManager, target: EntityTarget<ObjectLiteral>): RowShape {
  const metadata = manager.connection.getMetadata(target);
  let shape = shapes.get(metadata);
  if (!shape) {
    const { driver } = manager.connection;
    // A relation's join column and the column of the same name are one column.
    const columns = metadata.columns.filter(
      (column, index, all) =>
        !column.isVirtual && all.findIndex((c) => c.databaseName === column.databaseName) === index,
    );
    const list = columns.map((column) => driver.escape(column.databaseName)).join(', ');
    shape = {
      metadata,
      columns,
      select: `SELECT ${list} FROM ${driver.escape(metadata.tableName)}`,
    };
    shapes.set(metadata, shape);
  }
  return shape;
}

function columnOf(shape: RowShape, property: string): ColumnMetadata {
  const found = shape.metadata.findColumnWithPropertyPath(property);
  if (!found) throw new Error(`${shape.metadata.name} has no column ${property}`);
  return found;
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Entities whose `property` is one of `values` (none for no values), optionally ordered by another property. */
export async function rowsWhereIn<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  property: keyof E & string,
  values: readonly (number | string)[],
  orderBy?: keyof E & string,
): Promise<E[]> {
  if (values.length === 0) return [];
  const shape = shapeOf(manager, target);
  const escape = (name: string) =>
    manager.connection.driver.escape(columnOf(shape, name).databaseName);
  const unique = [...new Set(values)];
  const sql =
    `${shape.select} WHERE ${escape(property)} IN (${placeholders(unique.length)})` +
    (orderBy ? ` ORDER BY ${escape(orderBy)}` : '');
  const rows = await select(manager, sql, unique);
  return rows.map((row) => hydrate(manager, shape, row, (column) => column.databaseName) as E);
}

interface TranslatedShape {
  records: RowShape;
  translations: RowShape;
  /** `SELECT r.… AS r0…, t.… AS t0… FROM records r LEFT JOIN translations t ON …` */
  select: string;
}

const translatedShapes = new WeakMap<EntityMetadata, TranslatedShape>();

function translatedShapeOf(
  manager: EntityManager,
  target: EntityTarget<ObjectLiteral>,
): TranslatedShape {
  const metadata = manager.connection.getMetadata(target);
  let shape = translatedShapes.get(metadata);
  if (!shape) {
    const relation = metadata.findRelationWithPropertyPath('translations');
    const owner = relation?.inverseRelation?.joinColumns[0];
    if (!relation || !owner) throw new Error(`${metadata.name} has no translations relation`);
    const records = shapeOf(manager, target);
    const translations = shapeOf(manager, relation.inverseEntityMetadata.target);
    const escape = (name: string) => manager.connection.driver.escape(name);
    const aliased = (alias: string, of: RowShape) =>
      of.columns.map((c, i) => `${alias}.${escape(c.databaseName)} AS ${alias}${i}`).join(', ');
    shape = {
      records,
      translations,
      select:
        `SELECT ${aliased('r', records)}, ${aliased('t', translations)} ` +
        `FROM ${escape(metadata.tableName)} r LEFT JOIN ${escape(translations.metadata.tableName)} t ` +
        `ON t.${escape(owner.databaseName)} = r.${escape(columnOf(records, 'id').databaseName)}`,
    };
    translatedShapes.set(metadata, shape);
  }
  return shape;
}

/**
 * Records by ID with their `translations` (a one-to-many relation), in one
 * LEFT JOIN, keyed by ID. Every record is written with its texts, so one
 * without any is not a record to show (404 for a single read).
 */
export async function recordsWithTranslations<E extends ObjectLiteral & { id: number }>(
  manager: EntityManager,
  target: EntityTarget<E>,
  ids: readonly number[],
): Promise<Map<number, E>> {
  const byId = new Map<number, E>();
  if (ids.length === 0) return byId;
  const shape = translatedShapeOf(manager, target);
  const unique = [...new Set(ids)];
  const idColumn = manager.connection.driver.escape(columnOf(shape.records, 'id').databaseName);
  const rows = await select(
    manager,
    `${shape.select} WHERE r.${idColumn} IN (${placeholders(unique.length)})`,
    unique,
  );
  const recordId = `r${shape.records.columns.indexOf(columnOf(shape.records, 'id'))}`;
  const translationId = `t${shape.translations.columns.indexOf(columnOf(shape.translations, 'id'))}`;
  for (const row of rows) {
    if (row[translationId] === null || row[translationId] === undefined) continue;
    const translation = hydrate(manager, shape.translations, row, (_, i) => `t${i}`);
    const id = Number(row[recordId]);
    let record = byId.get(id) as ObjectLiteral | undefined;
    if (!record) {
      record = hydrate(manager, shape.records, row, (_, i) => `r${i}`);
      record.translations = [];
      byId.set(id, record as E);
    }
    (record.translations as ObjectLiteral[]).push(translation);
  }
  return byId;
}

/** On the manager's transaction if it has one, else on a connection of the request's read mode. */
async function select(
  manager: EntityManager,
  sql: string,
  params: unknown[],
): Promise<ObjectLiteral[]> {
  if (manager.queryRunner)
    return manager.queryRunner.query(sql, params) as Promise<ObjectLiteral[]>;
  const { connection } = manager;
  const runner = connection.createQueryRunner(connection.defaultReplicationModeForReads());
  try {
    return (await runner.query(sql, params)) as ObjectLiteral[];
  } finally {
    await runner.release();
  }
}

function hydrate(
  manager: EntityManager,
  shape: RowShape,
  row: ObjectLiteral,
  key: (column: ColumnMetadata, index: number) => string,
): ObjectLiteral {
  const { driver } = manager.connection;
  const entity = shape.metadata.create() as ObjectLiteral;
  shape.columns.forEach((column, index) => {
    entity[column.propertyName] = driver.prepareHydratedValue(row[key(column, index)], column);
  });
  return entity;
}

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
  const shape = shapeOf(manager, target);
  const { driver } = manager.connection;
  const columns = properties.map((property) => columnOf(shape, property));
  const row = `(${placeholders(columns.length)})`;
  const sql =
    `INSERT INTO ${driver.escape(shape.metadata.tableName)} ` +
    `(${columns.map((column) => driver.escape(column.databaseName)).join(', ')}) ` +
    `VALUES ${rows.map(() => row).join(', ')}`;
  const params = rows.flatMap((values) =>
    columns.map((column) => {
      const transformer = Array.isArray(column.transformer) ? undefined : column.transformer;
      const value: unknown = transformer
        ? transformer.to(values[column.propertyName])
        : values[column.propertyName];
      if (typeof value === 'boolean') return value ? 1 : 0;
      return value ?? null;
    }),
  );
  await manager.query(sql, params);
}
