import type { QueryRunner } from 'typeorm';
import { Row, TableSpec } from './schema';

export type Engine = 'mysql' | 'sqlite';

/** SQLite's default SQLITE_MAX_VARIABLE_NUMBER (3.32+). */
const SQLITE_MAX_PARAMETERS = 32_766;
/**
 * MySQL: mysql2 interpolates `?` on the client, so the limit is the packet
 * (max_allowed_packet, 16 MiB by default on MariaDB, 64 MiB on MySQL 8):
 * ~1 MB statements stay well inside it and are large enough to be fast.
 */
const MYSQL_MAX_PARAMETERS = 40_000;

/**
 * Multi-row parameterised INSERTs on one connection (QueryRunner): the driver
 * quotes every value, identifiers are quoted by the TypeORM driver.
 */
export class BulkInserter {
  readonly engine: Engine;
  private readonly statements = new Map<string, string>();
  /** Rows written per table name. */
  readonly written = new Map<string, number>();

  constructor(
    private readonly runner: QueryRunner,
    /** Upper bound of rows per statement (the parameter limit may lower it). */
    private readonly maxRows = 2000,
  ) {
    this.engine = runner.connection.options.type === 'mysql' ? 'mysql' : 'sqlite';
  }

  rowsPerStatement(table: TableSpec): number {
    const limit = this.engine === 'mysql' ? MYSQL_MAX_PARAMETERS : SQLITE_MAX_PARAMETERS;
    return Math.max(1, Math.min(this.maxRows, Math.floor(limit / table.columns.length)));
  }

  async insert(table: TableSpec, rows: readonly Row[]): Promise<void> {
    const size = this.rowsPerStatement(table);
    for (let start = 0; start < rows.length; start += size) {
      const chunk = rows.slice(start, start + size);
      const params: unknown[] = [];
      for (const row of chunk) {
        if (row.length !== table.columns.length)
          throw new Error(`${table.name}: row of ${row.length} values for ${table.columns.length} columns`);
        for (const value of row) params.push(value);
      }
      await this.runner.query(this.sql(table, chunk.length), params);
    }
    this.written.set(table.name, (this.written.get(table.name) ?? 0) + rows.length);
  }

  /** `INSERT INTO t (a, b) VALUES (?, ?), (?, ?)…`, cached by table, columns and row count. */
  private sql(table: TableSpec, rowCount: number): string {
    const key = `${table.name}:${table.columns.join(',')}:${rowCount}`;
    let sql = this.statements.get(key);
    if (sql === undefined) {
      const escape = (name: string) => this.runner.connection.driver.escape(name);
      const tuple = `(${table.columns.map(() => '?').join(', ')})`;
      sql =
        `INSERT INTO ${escape(table.name)} (${table.columns.map(escape).join(', ')}) VALUES ` +
        Array.from({ length: rowCount }, () => tuple).join(', ');
      this.statements.set(key, sql);
    }
    return sql;
  }
}
