import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * `linked_modified_at` of an event: when a venue or organizer it shows last
 * changed (unix seconds, 0 for never). The iCalendar feeds write the later of
 * it and `modified_at` as LAST-MODIFIED, so it moves when LOCATION or
 * ORGANIZER does.
 */
export class EventLinkedModified1765470000000 implements MigrationInterface {
  name = 'EventLinkedModified1765470000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'events',
      new TableColumn({ name: 'linked_modified_at', type: 'bigint', default: 0 }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('events', 'linked_modified_at');
  }
}
