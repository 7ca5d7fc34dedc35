import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Recurring events (docs/api.md §16): a series keeps its RFC 5545 lines and
 * how far its occurrences exist; every occurrence is an event row carrying
 * its series and its date in it, unique per series, so the horizon job can
 * never add one twice.
 */
export class RecurringEvents1764900000000 implements MigrationInterface {
  name = 'RecurringEvents1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('events', [
      new TableColumn({ name: 'recurrence', type: 'text', isNullable: true }),
      new TableColumn({ name: 'series_id', type: 'int', isNullable: true }),
      new TableColumn({
        name: 'occurrence_date',
        type: 'varchar',
        length: '10',
        isNullable: true,
      }),
      new TableColumn({ name: 'detached', type: 'boolean', default: 0 }),
      new TableColumn({
        name: 'materialized_until',
        type: 'varchar',
        length: '10',
        isNullable: true,
      }),
    ]);
    await q.createIndices('events', [
      new TableIndex({
        name: 'uq_events_occurrence',
        columnNames: ['series_id', 'occurrence_date'],
        isUnique: true,
      }),
      new TableIndex({ name: 'idx_events_materialized', columnNames: ['materialized_until'] }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('events', 'idx_events_materialized');
    await q.dropIndex('events', 'uq_events_occurrence');
    for (const column of [
      'materialized_until',
      'detached',
      'occurrence_date',
      'series_id',
      'recurrence',
    ]) {
      await q.dropColumn('events', column);
    }
  }
}
