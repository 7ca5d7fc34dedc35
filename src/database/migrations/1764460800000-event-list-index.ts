import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * One index that serves every event list: it starts like the
 * (status, start_at) index it replaces, keeps (start_at, id) order within a
 * status for paging, and covers the other columns lists filter on, so a
 * count over a wide date window reads only the index (no table scan).
 */
export class EventListIndex1764460800000 implements MigrationInterface {
  name = 'EventListIndex1764460800000';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex(
      'events',
      new TableIndex({
        name: 'idx_events_listing',
        columnNames: ['status', 'start_at', 'id', 'end_at', 'hide_from_listings', 'author_id'],
      }),
    );
    await q.dropIndex('events', 'idx_events_status_start');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createIndex(
      'events',
      new TableIndex({ name: 'idx_events_status_start', columnNames: ['status', 'start_at'] }),
    );
    await q.dropIndex('events', 'idx_events_listing');
  }
}
