import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * `import_hash` of an event: the hash of the iCalendar item an import last
 * wrote it from (docs/api.md "Imports"), so a re-import of an unchanged item
 * writes nothing. Read only by the import writer, through the external key
 * index (events) and the (series_id, occurrence_date) index (occurrences):
 * no index of its own.
 */
export class ImportHash1765700000000 implements MigrationInterface {
  name = 'ImportHash1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'events',
      new TableColumn({ name: 'import_hash', type: 'varchar', length: '43', isNullable: true }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('events', 'import_hash');
  }
}
