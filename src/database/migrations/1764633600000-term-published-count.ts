import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { RECOUNT_TERMS_SQL } from '../../terms/term-counts';

/**
 * `count` of a category or tag, kept on the term: counting its published
 * events on every read scans tens of thousands of links per term at a
 * million events. Event writes adjust it in their transaction.
 */
export class TermPublishedCount1764633600000 implements MigrationInterface {
  name = 'TermPublishedCount1764633600000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'terms',
      new TableColumn({ name: 'published_count', type: 'int', default: 0 }),
    );
    await q.query(RECOUNT_TERMS_SQL);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('terms', 'published_count');
  }
}
