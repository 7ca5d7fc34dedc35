import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { committedRead } from '../database/write-transaction';
import { CursorCodec } from './change-cursor';
import { CHANGE_COLLECTIONS, ChangeKind } from './change-kinds';

/** One row of the change log as the feed reads it. */
export interface ChangeRow {
  kind: ChangeKind;
  id: number;
  seq: number;
  deleted: boolean;
  changedAt: number;
}

export interface FeedRead {
  /** The sequence's value in the same snapshot: every change up to it had committed. */
  head: number;
  /** Tombstones up to this sequence number were purged (retention). */
  purged: number;
  rows: ChangeRow[];
}

/** A changed venue, organizer or term, named as the feed's linked-record cache names it. */
export type LinkedChange = { kind: 'venue' | 'organizer' | 'term'; id: number };

/** The kinds whose records the feed's linked-record cache holds, and how it names them. */
const LINKED_KINDS = {
  venue: 'venue',
  organizer: 'organizer',
  category: 'term',
  tag: 'term',
} as const;
/** Changed linked records read to carry the cache over a head move; beyond it, it starts over. */
const LINKED_CHANGES_MAX = 1_000;

/**
 * The changes feed's SQL (docs/api.md §12): the change rows after a
 * position with the head and the retention watermark, the linked records
 * changed since a head, and the cursor key. Reads of committed rows only;
 * anonymous reads may go to a replica.
 */
@Injectable()
export class ChangeLogReader {
  private codec?: Promise<CursorCodec>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * One statement: the state row, then the next changes in sequence order,
   * each an index range that stops after `limit` rows (`seq` for all kinds,
   * `(kind, seq)` per kind for a subset, merged here).
   */
  async readChanges(after: number, kinds: ChangeKind[], limit: number): Promise<FeedRead> {
    const page = (kind: boolean, i: number) =>
      'SELECT * FROM (SELECT seq, NULL AS head, NULL AS purged, kind, record_id, deleted, changed_at ' +
      `FROM changes WHERE seq > ?${kind ? ' AND kind = ?' : ''} ORDER BY seq LIMIT ?) p${i}`;
    const all = kinds.length === CHANGE_COLLECTIONS.length;
    const members = all ? [page(false, 0)] : kinds.map((_, i) => page(true, i));
    const sql = [
      'SELECT -1 AS seq, seq AS head, purged_seq AS purged, NULL AS kind, NULL AS record_id, ' +
        'NULL AS deleted, NULL AS changed_at FROM change_state WHERE id = 1',
      ...members,
    ].join(' UNION ALL ');
    const params = all ? [after, limit] : kinds.flatMap((kind) => [after, kind, limit]);
    // Anonymous reads may go to a replica: one statement keeps the answer consistent there too.
    const result = await this.query(sql, params);
    const state = result.find((row) => Number(row.seq) === -1);
    if (!state) throw new Error('change_state has no row');
    return {
      head: Number(state.head),
      purged: Number(state.purged),
      rows: result
        .filter((row) => row !== state)
        .map((row) => ({
          kind: row.kind as ChangeKind,
          id: Number(row.record_id),
          seq: Number(row.seq),
          deleted: Number(row.deleted) === 1,
          changedAt: Number(row.changed_at),
        }))
        .sort((a, b) => a.seq - b.seq)
        .slice(0, limit),
    };
  }

  /**
   * The venues, organizers and terms changed since `after` (also those changed again past `upTo`), one
   * `(kind, seq)` index range per kind; undefined when there are more than
   * LINKED_CHANGES_MAX of a kind, or when this connection (a replica) has not
   * yet seen `upTo`. Read only after the head moved, so a poll that finds
   * nothing new pays nothing for it.
   */
  async linkedChanges(after: number, upTo: number): Promise<LinkedChange[] | undefined> {
    const kinds = Object.keys(LINKED_KINDS) as Array<keyof typeof LINKED_KINDS>;
    const sql = [
      // The state row first: no kind, this connection's head in place of an ID.
      'SELECT NULL AS kind, seq AS record_id FROM change_state WHERE id = 1',
      ...kinds.map(
        (_, i) =>
          // No upper bound: a record changed again after `upTo` has moved its one row past
          // it, and must still be dropped (a few later ones dropped too cost a read only).
          `SELECT * FROM (SELECT kind, record_id FROM changes WHERE kind = ? AND seq > ? ` +
          `ORDER BY seq LIMIT ${LINKED_CHANGES_MAX + 1}) l${i}`,
      ),
    ].join(' UNION ALL ');
    const rows = await this.query(
      sql,
      kinds.flatMap((kind) => [kind, after]),
    );
    const [state, ...changed] = [
      rows.find((row) => row.kind === null),
      ...rows.filter((row) => row.kind !== null),
    ];
    if (!state || Number(state.record_id) < upTo) return undefined;
    const perKind = (kind: string) => changed.filter((row) => row.kind === kind).length;
    if (kinds.some((kind) => perKind(kind) > LINKED_CHANGES_MAX)) return undefined;
    return changed.map((row) => ({
      kind: LINKED_KINDS[row.kind as keyof typeof LINKED_KINDS],
      id: Number(row.record_id),
    }));
  }

  /** A read of committed rows; anonymous reads may go to a replica (one statement is consistent there too). */
  private query(
    sql: string,
    params: unknown[],
  ): Promise<Array<Record<string, string | number | null>>> {
    const mode = this.dataSource.defaultReplicationModeForReads();
    return committedRead(this.dataSource, async () => {
      const runner = this.dataSource.createQueryRunner(mode);
      try {
        return (await runner.query(sql, params)) as Array<Record<string, string | number | null>>;
      } finally {
        await runner.release();
      }
    });
  }

  hasReadReplicas(): boolean {
    const options = this.dataSource.options as { replication?: unknown };
    return Boolean(options.replication);
  }

  /** The key is made by the migration and never changes: read once. */
  cursorCodec(): Promise<CursorCodec> {
    this.codec ??= this.dataSource
      .query('SELECT cursor_key FROM change_state WHERE id = 1')
      .then(
        ([row]: Array<{ cursor_key: string }>) =>
          new CursorCodec(Buffer.from(row.cursor_key, 'hex')),
      )
      .catch((error: unknown) => {
        this.codec = undefined;
        throw error;
      });
    return this.codec;
  }
}

/** The venues, organizers and terms among these changes after `after` (see linkedChanges). */
export function linkedIn(rows: ChangeRow[], after: number): LinkedChange[] {
  return rows.flatMap((row) =>
    row.kind !== 'event' && row.seq > after ? [{ kind: LINKED_KINDS[row.kind], id: row.id }] : [],
  );
}
