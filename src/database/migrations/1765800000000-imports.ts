import {
  MigrationInterface,
  QueryRunner,
  Table,
  TableColumnOptions,
  TableForeignKey,
  TableIndex,
} from 'typeorm';

/**
 * iCalendar imports (docs/api.md "Imports"): the import sources, with what
 * their schedule needs (the next run, the claim of the instance running one,
 * the feed's validators), and one report row per run.
 */
export class Imports1765800000000 implements MigrationInterface {
  name = 'Imports1765800000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type === 'mysql';
    const id: TableColumnOptions = {
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    };
    const int = (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'int',
      isNullable: nullable,
      ...(nullable ? {} : { default: 0 }),
    });
    const epoch = (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'bigint',
      isNullable: nullable,
    });
    const str = (name: string, length: number, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
    });

    await q.createTable(
      new Table({
        name: 'imports',
        columns: [
          id,
          str('url', 2048, true),
          int('refresh_seconds', true),
          str('source', 64),
          // The source of a URL import (NULL for uploads): unique, so two schedules never share one.
          str('feed_source', 64, true),
          str('language', 8),
          { name: 'categories', type: 'text' },
          str('status', 16),
          { name: 'trash_removed', type: 'boolean', default: 1 },
          int('author_id'),
          str('etag', 1000, true),
          str('last_modified', 1000, true),
          epoch('next_run_ms', true),
          epoch('running_since_ms', true),
          epoch('last_run_ms', true),
          str('last_outcome', 16, true),
          epoch('last_success_ms', true),
          epoch('created_at'),
        ],
        indices: [
          new TableIndex({
            name: 'uq_imports_feed_source',
            columnNames: ['feed_source'],
            isUnique: true,
          }),
          // What the scheduler looks for: imports whose next run is due.
          new TableIndex({ name: 'idx_imports_due', columnNames: ['next_run_ms'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'import_runs',
        columns: [
          id,
          int('import_id'),
          str('cause', 16),
          str('outcome', 16),
          epoch('started_ms'),
          epoch('finished_ms'),
          int('created'),
          int('updated'),
          int('unchanged'),
          int('trashed'),
          int('skipped_count'),
          // Up to 1,000 skipped VEVENTs with UIDs and details: more than TEXT's 64 KiB on MySQL.
          { name: 'skipped', type: mysql ? 'mediumtext' : 'text' },
          { name: 'fetch_result', type: 'text', isNullable: true },
          { name: 'refusal', type: 'text', isNullable: true },
        ],
        indices: [
          // An import's last runs, newest first.
          new TableIndex({ name: 'idx_import_runs_import', columnNames: ['import_id', 'id'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            columnNames: ['import_id'],
            referencedTableName: 'imports',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('import_runs');
    await q.dropTable('imports');
  }
}
