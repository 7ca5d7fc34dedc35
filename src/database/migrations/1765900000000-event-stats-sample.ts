import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MySQL/MariaDB only: InnoDB estimates index statistics from 20 sampled
 * pages by default, and on `events` that put `status` at 426 distinct values
 * in `idx_events_zones` (there are five) and 4 in `idx_events_listing`. A
 * keyset page of the iCalendar feed near its window's end then looked
 * cheaper as a look-up of one status in the zones index plus a sort (2,264
 * rows estimated) than as the listing index's range, and read all 900k
 * published entries: 130–380 ms a page instead of a few (1M events). With
 * 100 sampled pages both indexes say 4. Statistics are read again at the
 * end, so the plan is right from this migration on.
 */
export class EventStatsSample1765900000000 implements MigrationInterface {
  name = 'EventStatsSample1765900000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'mysql') return;
    await q.query('ALTER TABLE events STATS_SAMPLE_PAGES = 100');
    await q.query('ANALYZE TABLE events');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'mysql') return;
    await q.query('ALTER TABLE events STATS_SAMPLE_PAGES = DEFAULT');
    await q.query('ANALYZE TABLE events');
  }
}
