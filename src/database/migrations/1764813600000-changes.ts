import { randomBytes } from 'node:crypto';
import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { backfillChanges } from '../../changes/change-backfill';

/**
 * The changes feed (docs/api.md §12): `changes` holds each record's latest
 * change; `change_state` the sequence that orders them by commit, the
 * retention watermark and the key that signs cursors.
 */
export class Changes1764813600000 implements MigrationInterface {
  name = 'Changes1764813600000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'change_state',
        columns: [
          { name: 'id', type: 'int', isPrimary: true },
          { name: 'seq', type: 'bigint', default: 0 },
          { name: 'purged_seq', type: 'bigint', default: 0 },
          { name: 'cursor_key', type: 'varchar', length: '64' },
        ],
      }),
    );
    await q.query(
      'INSERT INTO change_state (id, seq, purged_seq, cursor_key) VALUES (1, 0, 0, ?)',
      [randomBytes(32).toString('hex')],
    );
    await q.createTable(
      new Table({
        name: 'changes',
        columns: [
          { name: 'kind', type: 'varchar', length: '12', isPrimary: true },
          { name: 'record_id', type: 'int', isPrimary: true },
          { name: 'seq', type: 'bigint' },
          { name: 'deleted', type: 'boolean', default: 0 },
          { name: 'changed_at', type: 'bigint' },
        ],
        indices: [
          new TableIndex({ name: 'idx_changes_seq', columnNames: ['seq'], isUnique: true }),
          new TableIndex({ name: 'idx_changes_kind_seq', columnNames: ['kind', 'seq'] }),
          new TableIndex({ name: 'idx_changes_tombstones', columnNames: ['deleted', 'seq'] }),
        ],
      }),
    );
    await backfillChanges(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('changes');
    await q.dropTable('change_state');
  }
}
