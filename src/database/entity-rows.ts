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
  const { driver } = manager.connection;
  const column = (name: string) => {
    const found = shape.metadata.findColumnWithPropertyPath(name);
    if (!found) throw new Error(`${shape.metadata.name} has no column ${name}`);
    return driver.escape(found.databaseName);
  };
  const unique = [...new Set(values)];
  const sql =
    `${shape.select} WHERE ${column(property)} IN (${unique.map(() => '?').join(', ')})` +
    (orderBy ? ` ORDER BY ${column(orderBy)}` : '');
  const rows = await select(manager, sql, unique);
  return rows.map((row) => hydrate(manager, shape, row) as E);
}

/**
 * Records by ID with their `translations` (a one-to-many relation), in two
 * queries side by side, keyed by ID. Every record is written with its texts,
 * so one found without any was deleted between the two reads: it is left out.
 */
export async function recordsWithTranslations<E extends ObjectLiteral & { id: number }>(
  manager: EntityManager,
  target: EntityTarget<E>,
  ids: readonly number[],
): Promise<Map<number, E>> {
  if (ids.length === 0) return new Map();
  const relation = manager.connection
    .getMetadata(target)
    .findRelationWithPropertyPath('translations');
  const owner = relation?.inverseRelation?.joinColumns[0];
  if (!relation || !owner) throw new Error('expected a translations relation');
  const [records, translations] = await Promise.all([
    rowsWhereIn(manager, target, 'id', ids),
    rowsWhereIn<ObjectLiteral>(
      manager,
      relation.inverseEntityMetadata.target,
      owner.propertyName,
      ids,
      'id',
    ),
  ]);
  const byId = new Map<number, E>();
  for (const record of records) {
    (record as ObjectLiteral).translations = [];
    byId.set(record.id, record);
  }
  for (const translation of translations) {
    const record = byId.get(translation[owner.propertyName] as number) as ObjectLiteral | undefined;
    (record?.translations as ObjectLiteral[] | undefined)?.push(translation);
  }
  for (const [id, record] of byId) {
    if ((record.translations as unknown[]).length === 0) byId.delete(id);
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

function hydrate(manager: EntityManager, shape: RowShape, row: ObjectLiteral): ObjectLiteral {
  const { driver } = manager.connection;
  const entity = shape.metadata.create() as ObjectLiteral;
  for (const column of shape.columns) {
    entity[column.propertyName] = driver.prepareHydratedValue(row[column.databaseName], column);
  }
  return entity;
}
