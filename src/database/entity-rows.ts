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

export interface RowShape {
  metadata: EntityMetadata;
  columns: ColumnMetadata[];
  /** Per alias prefix of a join (`r0…`, `t0…`): how to hydrate a row. */
  fields: Map<string, HydratedField[]>;
  /** Per list of inserted properties (joined by commas): how to write that INSERT. */
  inserts: Map<string, InsertShape>;
}

/** An INSERT of some properties of an entity: their values' conversions, and the SQL up to `VALUES`. */
export interface InsertShape {
  /** Per column in order: the property it takes, through the column's transformer if it has one. */
  fields: Array<{ property: string; to?: (value: unknown) => unknown }>;
  head: string;
  /** One row's `(?, ?, …)`. */
  row: string;
}

/** One column of a result row and where its value goes. */
interface HydratedField {
  column: ColumnMetadata;
  /** The row's key of the column. */
  key: string;
  /**
   * The driver's hydration returns the value as it is: no transformer, and a
   * type its prepareHydratedValue does not convert (both drivers convert only
   * booleans, dates, times, JSON, arrays, enums and the JS Number type).
   */
  asIs: boolean;
}

const AS_IS_TYPES = new Set([
  'int',
  'integer',
  'bigint',
  'smallint',
  'tinyint',
  'varchar',
  'char',
  'text',
  'mediumtext',
  'longtext',
  'decimal',
  'double',
  'float',
  'real',
]);

// Not write state: a cache of each entity's row shape, derived from its fixed metadata.
const shapes = new WeakMap<EntityMetadata, RowShape>();

export function shapeOf(manager: EntityManager, target: EntityTarget<ObjectLiteral>): RowShape {
  const metadata = manager.connection.getMetadata(target);
  let shape = shapes.get(metadata);
  if (!shape) {
    // A relation's join column and the column of the same name are one column.
    const columns = metadata.columns.filter(
      (column, index, all) =>
        !column.isVirtual && all.findIndex((c) => c.databaseName === column.databaseName) === index,
    );
    shape = { metadata, columns, fields: new Map(), inserts: new Map() };
    shapes.set(metadata, shape);
  }
  return shape;
}

export function columnOf(shape: RowShape, property: string): ColumnMetadata {
  const found = shape.metadata.findColumnWithPropertyPath(property);
  if (!found) throw new Error(`${shape.metadata.name} has no column ${property}`);
  return found;
}

export const placeholders = (n: number) => (n > 0 ? '?' + ', ?'.repeat(n - 1) : '');

/** A plain-row read of some properties: the SELECT and the values to convert. */
interface PlainShape {
  /** `SELECT <column> AS <property>, … FROM <table>` */
  select: string;
  /** The selected columns whose values the drivers convert (not HydratedField.asIs). */
  converted: ColumnMetadata[];
}

// Not write state: a cache of select shapes, derived from fixed metadata.
const plainShapes = new WeakMap<EntityMetadata, Map<string, PlainShape>>();

function plainShapeOf(shape: RowShape, manager: EntityManager, properties: readonly string[]) {
  let byProperties = plainShapes.get(shape.metadata);
  if (!byProperties) plainShapes.set(shape.metadata, (byProperties = new Map()));
  const key = properties.join(',');
  let plain = byProperties.get(key);
  if (!plain) {
    const { driver } = manager.connection;
    const columns = properties.map((property) => columnOf(shape, property));
    const list = columns.map(
      (column) => `${driver.escape(column.databaseName)} AS ${driver.escape(column.propertyName)}`,
    );
    plain = {
      select: `SELECT ${list.join(', ')} FROM ${driver.escape(shape.metadata.tableName)}`,
      converted: columns.filter((column) => !hydratesAsIs(column)),
    };
    byProperties.set(key, plain);
  }
  return plain;
}

/**
 * Some properties of the rows whose `property` is one of `values`, as plain
 * objects, not entities: each column is selected under its property name,
 * so the driver's row object is the result, and only the values the drivers
 * convert (booleans, instants behind a transformer) are converted, in place,
 * as TypeORM's find() would. For read-only pages of many rows, where
 * building an entity per row and copying every value into it was a large
 * part of the CPU (docs/performance.md, changes feed).
 */
export async function plainRowsWhereIn<E extends ObjectLiteral, P extends keyof E & string>(
  manager: EntityManager,
  target: EntityTarget<E>,
  properties: readonly P[],
  property: keyof E & string,
  values: readonly (number | string)[],
  orderBy?: keyof E & string,
): Promise<Array<Pick<E, P>>> {
  if (values.length === 0) return [];
  const shape = shapeOf(manager, target);
  const plain = plainShapeOf(shape, manager, properties);
  const { driver } = manager.connection;
  const escape = (name: string) => driver.escape(columnOf(shape, name).databaseName);
  const unique = [...new Set(values)];
  const sql =
    `${plain.select} WHERE ${escape(property)} IN (${placeholders(unique.length)})` +
    (orderBy ? ` ORDER BY ${escape(orderBy)}` : '');
  const rows = await selectRows(manager, sql, unique);
  if (plain.converted.length > 0) {
    for (const row of rows) {
      for (const column of plain.converted) {
        row[column.propertyName] = driver.prepareHydratedValue(row[column.propertyName], column);
      }
    }
  }
  return rows as Array<Pick<E, P>>;
}

/** Entities whose `property` is one of `values` (none for no values): plainRowsWhereIn of every column. */
export async function rowsWhereIn<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  property: keyof E & string,
  values: readonly (number | string)[],
  orderBy?: keyof E & string,
): Promise<E[]> {
  const { metadata, columns } = shapeOf(manager, target);
  const properties = columns.map((column) => column.propertyPath as keyof E & string);
  const rows = await plainRowsWhereIn(manager, target, properties, property, values, orderBy);
  return rows.map((row) => Object.assign(metadata.create() as E, row));
}

interface TranslatedShape {
  records: RowShape;
  translations: RowShape;
  /** `r.… AS r0…, t.… AS t0…` */
  columns: string;
  /** The records' table and ID column, escaped. */
  table: string;
  id: string;
  /** `LEFT JOIN translations t ON t.<owner> = r.<id>` */
  joinTranslations: string;
  /** `SELECT <columns> FROM <table> r <joinTranslations>` */
  select: string;
}

// Not write state: a cache of join shapes, derived from fixed metadata.
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
    const columns = `${aliased('r', records)}, ${aliased('t', translations)}`;
    const [table, id] = [escape(metadata.tableName), escape(columnOf(records, 'id').databaseName)];
    const joinTranslations =
      `LEFT JOIN ${escape(translations.metadata.tableName)} t ` +
      `ON t.${escape(owner.databaseName)} = r.${id}`;
    const select = `SELECT ${columns} FROM ${table} r ${joinTranslations}`;
    shape = { records, translations, columns, table, id, joinTranslations, select };
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
  if (ids.length === 0) return new Map();
  const shape = translatedShapeOf(manager, target);
  const unique = [...new Set(ids)];
  const rows = await selectRows(
    manager,
    `${shape.select} WHERE r.${shape.id} IN (${placeholders(unique.length)})`,
    unique,
  );
  const byId = new Map<number, E>();
  for (const { record } of withTranslations<E>(manager, shape, rows)) byId.set(record.id, record);
  return byId;
}

/** A query of record IDs in its order (`SELECT <id> AS id … ORDER BY … LIMIT …`) and its values. */
export interface PageQuery {
  sql: string;
  params: unknown[];
  /** The record properties it is ordered by, each ascending (the ID last). */
  orderedBy: readonly string[];
}

/**
 * The records a page query names, with their `translations`, in its order,
 * in one statement: the page's IDs, the records and their texts are read
 * together rather than one after the other. `extras`: more values per record,
 * as SQL expressions over the record's alias `r` (each read from its first
 * row). As in recordsWithTranslations, a record without texts is left out.
 */
export async function pageWithTranslations<E extends ObjectLiteral & { id: number }>(
  manager: EntityManager,
  target: EntityTarget<E>,
  page: PageQuery,
  extras: Readonly<Record<string, string>> = {},
): Promise<Array<{ record: E; extras: ObjectLiteral }>> {
  const shape = translatedShapeOf(manager, target);
  const { driver } = manager.connection;
  const column = (property: string) =>
    `r.${driver.escape(columnOf(shape.records, property).databaseName)}`;
  const extraColumns = Object.entries(extras).map(
    ([key, sql]) => `, ${sql} AS ${driver.escape(key)}`,
  );
  const rows = await selectRows(
    manager,
    `SELECT ${shape.columns}${extraColumns.join('')} FROM (${page.sql}) p ` +
      `INNER JOIN ${shape.table} r ON r.${shape.id} = p.${driver.escape('id')} ` +
      `${shape.joinTranslations} ORDER BY ${page.orderedBy.map(column).join(', ')}`,
    page.params,
  );
  return withTranslations<E>(manager, shape, rows, Object.keys(extras));
}

/**
 * Records with their translations from rows of `r<i>`/`t<i>` columns, one row
 * per translation and a record's rows together, in the rows' order;
 * `extras`: keys of more values per record, kept from its first row.
 */
function withTranslations<E extends ObjectLiteral>(
  manager: EntityManager,
  shape: TranslatedShape,
  rows: ObjectLiteral[],
  extras: readonly string[] = [],
): Array<{ record: E; extras: ObjectLiteral }> {
  const recordId = `r${shape.records.columns.indexOf(columnOf(shape.records, 'id'))}`;
  const translationId = `t${shape.translations.columns.indexOf(columnOf(shape.translations, 'id'))}`;
  const [recordFields, translationFields] = [
    fieldsOf(shape.records, 'r'),
    fieldsOf(shape.translations, 't'),
  ];
  const read: Array<{ record: E; extras: ObjectLiteral }> = [];
  const byId = new Map<number, ObjectLiteral>();
  for (const row of rows) {
    if (row[translationId] === null || row[translationId] === undefined) continue;
    const translation = hydrate(manager, shape.translations, translationFields, row);
    const id = Number(row[recordId]);
    let record = byId.get(id);
    if (!record) {
      record = hydrate(manager, shape.records, recordFields, row);
      record.translations = [];
      byId.set(id, record);
      const values: ObjectLiteral = {};
      for (const key of extras) values[key] = row[key];
      read.push({ record: record as E, extras: values });
    }
    (record.translations as ObjectLiteral[]).push(translation);
  }
  return read;
}

/**
 * A SELECT on the manager's transaction if it has one, else on a connection
 * of the request's read mode (a replica for anonymous reads, read-routing.ts;
 * `manager.query` would always take the primary).
 */
export async function selectRows(
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

/** Whether the drivers' hydration returns this column's values unchanged (HydratedField.asIs). */
export function hydratesAsIs(column: ColumnMetadata): boolean {
  return !column.transformer && typeof column.type === 'string' && AS_IS_TYPES.has(column.type);
}

/** The fields of a shape's rows whose keys are `<prefix><column index>`. */
function fieldsOf(shape: RowShape, prefix: string): HydratedField[] {
  let fields = shape.fields.get(prefix);
  if (!fields) {
    fields = shape.columns.map((column, index) => ({
      column,
      key: `${prefix}${index}`,
      asIs: hydratesAsIs(column),
    }));
    shape.fields.set(prefix, fields);
  }
  return fields;
}

/** An entity of the row's values, converted as TypeORM's find() would (rows of a page: kept lean). */
function hydrate(
  manager: EntityManager,
  shape: RowShape,
  fields: HydratedField[],
  row: ObjectLiteral,
): ObjectLiteral {
  const { driver } = manager.connection;
  const entity = shape.metadata.create() as ObjectLiteral;
  for (const { column, key, asIs } of fields) {
    const value: unknown = row[key];
    entity[column.propertyName] = asIs ? value : driver.prepareHydratedValue(value, column);
  }
  return entity;
}
