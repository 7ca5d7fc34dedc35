import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochColumn } from '../database/columns';
import type { ChangeKind } from './change-kinds';

const bigint = { to: (v: number) => v, from: (v: string | number) => Number(v) };

/**
 * The latest change of one record (docs/api.md §12): one row per record, moved
 * to a new `seq` by every write that changes it. A record deleted for good
 * keeps its row as a tombstone (`deleted`) for SYNC_RETENTION_DAYS.
 */
@Entity('changes')
@Index('idx_changes_seq', ['seq'], { unique: true })
@Index('idx_changes_kind_seq', ['kind', 'seq'])
@Index('idx_changes_tombstones', ['deleted', 'seq'])
export class Change {
  @PrimaryColumn({ type: 'varchar', length: 12 })
  kind: ChangeKind;

  @PrimaryColumn({ name: 'record_id', type: 'int' })
  recordId: number;

  /** Position in commit order, from change_state.seq. */
  @Column({ type: 'bigint', transformer: bigint })
  seq: number;

  @Column({ type: 'boolean', default: false })
  deleted: boolean;

  @EpochColumn({ name: 'changed_at' })
  changedAt: number;
}
