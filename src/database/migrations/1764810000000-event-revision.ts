import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * `revision` of an event: 0 on create, one more on every update or trash.
 * The iCalendar feeds write it as SEQUENCE, which must grow with every change.
 */
export class EventRevision1764810000000 implements MigrationInterface {
  name = 'EventRevision1764810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('events', new TableColumn({ name: 'revision', type: 'int', default: 0 }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('events', 'revision');
  }
}
