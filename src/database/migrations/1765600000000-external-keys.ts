import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

const TABLES = ['events', 'venues', 'organizers'] as const;

/**
 * External keys (docs/api.md §17): `external_source` and `external_id` on
 * events, venues and organizers, unique per table and source. The unique
 * index also serves the `external_source` list filter (its first column).
 * Keys compare byte for byte on MySQL too (as on SQLite): `ABC` and `abc`
 * are two keys.
 */
export class ExternalKeys1765600000000 implements MigrationInterface {
  name = 'ExternalKeys1765600000000';

  async up(q: QueryRunner): Promise<void> {
    const binary =
      q.connection.options.type === 'better-sqlite3' ? {} : { collation: 'utf8mb4_bin' };
    for (const table of TABLES) {
      await q.addColumns(table, [
        new TableColumn({
          name: 'external_source',
          type: 'varchar',
          length: '64',
          isNullable: true,
          ...binary,
        }),
        new TableColumn({
          name: 'external_id',
          type: 'varchar',
          length: '255',
          isNullable: true,
          ...binary,
        }),
      ]);
      await q.createIndex(
        table,
        new TableIndex({
          name: `uq_${table}_external_key`,
          columnNames: ['external_source', 'external_id'],
          isUnique: true,
        }),
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...TABLES].reverse()) {
      await q.dropIndex(table, `uq_${table}_external_key`);
      await q.dropColumns(table, ['external_id', 'external_source']);
    }
  }
}
