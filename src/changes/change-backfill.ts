import type { EntityManager, QueryRunner } from 'typeorm';

type Runner = Pick<QueryRunner | EntityManager, 'query'>;

/** Each kind's rows: [kind expression, table, time column]. Terms share one table and ID space. */
const SOURCES: Array<[string, string, string]> = [
  ["'event'", 'events', 'modified_at'],
  ["'venue'", 'venues', 'modified_at'],
  ["'organizer'", 'organizers', 'modified_at'],
  ["CASE WHEN taxonomy = 'post_tag' THEN 'tag' ELSE 'category' END", 'terms', 'created_at'],
];

/**
 * Gives every existing record a row in `changes` (after the current sequence),
 * so a feed read without `since` shows everything. For the migration and for
 * tools that write records without the service (the seeder). Earlier rows of
 * the feed are dropped, and every cursor issued before is expired (410), so
 * clients start again from a feed that shows everything.
 */
export async function backfillChanges(runner: Runner): Promise<void> {
  const [state] = (await runner.query('SELECT seq FROM change_state WHERE id = 1')) as Array<{
    seq: number | string;
  }>;
  // One number is skipped, so even a cursor at the old end of the feed is before the watermark.
  const watermark = Number(state.seq) + 1;
  let base = watermark;
  await runner.query('DELETE FROM changes');
  for (const [kind, table, time] of SOURCES) {
    // IDs are positive and unique per table, so base + id is a fresh, unique sequence number.
    await runner.query(
      `INSERT INTO changes (kind, record_id, seq, deleted, changed_at)
       SELECT ${kind}, id, ? + id, 0, ${time} FROM ${table}`,
      [base],
    );
    const [top] = (await runner.query(`SELECT MAX(id) AS top FROM ${table}`)) as Array<{
      top: number | string | null;
    }>;
    base += Number(top.top ?? 0);
  }
  await runner.query('UPDATE change_state SET seq = ?, purged_seq = ? WHERE id = 1', [
    base,
    watermark,
  ]);
}
