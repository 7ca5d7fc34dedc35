import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import { appConfig } from '../config/app.config';
import { nowEpoch } from '../common/time/dates';
import type { ChangeKind } from './change-kinds';
import type { WriteUnit } from './write-unit';

/** One record a write created, changed or deleted (docs/api.md §12, §15). */
export interface TrackedChange {
  kind: ChangeKind;
  id: number;
  action: 'created' | 'updated' | 'deleted';
  /** On `deleted`: deleted for good (true) or trashed (false). */
  permanent?: boolean;
  /**
   * Set when the record is announced only because a record it embeds changed
   * who may see it (a venue published or unpublished): its own row did not change.
   */
  via?: { kind: ChangeKind; id: number };
}

/**
 * Subscribers to every write (the webhooks outbox, the idempotency answer):
 * called once per write transaction with its changes, inside that
 * transaction, before it commits (the commit pipeline, Writes). Whatever the
 * listener writes commits or rolls back with the write; an error rolls the
 * write back.
 */
export interface ChangeListener {
  onChanges(unit: WriteUnit, changes: readonly TrackedChange[]): Promise<void>;
  /**
   * Reads now, in the unit's transaction, what onChanges will read (the
   * webhook endpoints): for a write that asks before it takes locks other
   * writers wait on (Writes.run's `readAhead`), so that read is not among
   * the statements they wait for.
   */
  readAhead?(unit: WriteUnit): Promise<void>;
}

/** A change as the feed numbered it, told to commit listeners once its write committed. */
export interface CommittedChange {
  kind: ChangeKind;
  id: number;
  seq: number;
  deleted: boolean;
}

/**
 * One entry per record, in the order first recorded: `created` stays created
 * unless deleted; `deleted` wins (permanent if any was); a direct change wins over `via`.
 */
export function mergeChanges(changes: readonly TrackedChange[]): TrackedChange[] {
  const merged = new Map<string, TrackedChange>();
  for (const change of changes) {
    const key = `${change.kind}:${change.id}`;
    const seen = merged.get(key);
    if (!seen) {
      merged.set(key, { ...change });
      continue;
    }
    if (change.action === 'deleted') {
      seen.action = 'deleted';
      seen.permanent = Boolean(seen.permanent || change.permanent);
    } else if (seen.action === 'updated' && change.action === 'created') {
      seen.action = 'created';
    }
    if (!change.via) delete seen.via;
  }
  return [...merged.values()];
}

/** Rows per upsert statement. */
const CHUNK = 500;

/**
 * The change tracking of every write transaction (docs/api.md §12), as the
 * commit pipeline (Writes) calls it: the listeners first, then, as the
 * write's LAST statements, `number` takes a block of sequence numbers from
 * the single `change_state` row, bumping the shared data version in the same
 * statement, and upserts one `changes` row per record. The row lock of that
 * UPDATE is held until COMMIT, so a transaction that takes numbers after
 * another waits for its commit: sequence order is commit order, and a reader
 * never sees a number while a smaller one is still uncommitted. Only this
 * tail of each write is serialised. The version moves atomically with the
 * data.
 */
@Injectable()
export class ChangeTracker {
  private readonly listeners: ChangeListener[] = [];
  private readonly commitListeners: Array<(changes: CommittedChange[]) => void> = [];

  constructor(@Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>) {}

  /** `listener` hears of every write's changes before its COMMIT; returns its unsubscribe. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /** `listener` hears of every write's changes after its COMMIT, on this instance (not called for others'). */
  onCommitted(listener: (changes: CommittedChange[]) => void): void {
    this.commitListeners.push(listener);
  }

  /** Lets the listeners read what they will need at announce (ChangeListener.readAhead). */
  async readAhead(unit: WriteUnit): Promise<void> {
    for (const listener of [...this.listeners]) await listener.readAhead?.(unit);
  }

  /** Tells the listeners of the write's changes, in the order they subscribed. */
  async announce(unit: WriteUnit, changes: readonly TrackedChange[]): Promise<void> {
    for (const listener of [...this.listeners]) await listener.onChanges(unit, changes);
  }

  /**
   * Numbers the changes, bumps the data version and upserts the change rows:
   * the last statements before COMMIT. Returns the numbered changes.
   */
  async number(
    manager: EntityManager,
    changes: readonly TrackedChange[],
  ): Promise<CommittedChange[]> {
    const last = await allocateSequenceAndBumpVersion(
      manager,
      changes.length,
      this.config.portableSql,
    );
    const first = last - changes.length + 1;
    const now = nowEpoch();
    const rows = changes.map((change, i) => [
      change.kind,
      change.id,
      first + i,
      change.action === 'deleted' && change.permanent ? 1 : 0,
      now,
    ]);
    for (let i = 0; i < rows.length; i += CHUNK)
      await upsertRows(manager, rows.slice(i, i + CHUNK));
    return changes.map((change, i) => ({
      kind: change.kind,
      id: change.id,
      seq: first + i,
      deleted: change.action === 'deleted',
    }));
  }

  /** After COMMIT: the commit listeners (the feed's read-ahead) hear of the numbered changes. */
  committed(changes: CommittedChange[]): void {
    for (const listener of this.commitListeners) listener(changes);
  }
}

/**
 * Takes `count` sequence numbers and bumps the data version; returns the last
 * number. Both rows stay locked until COMMIT. `portableSql`: without the
 * multi-table UPDATE that TiDB and Vitess do not take (docs/scaling.md).
 */
async function allocateSequenceAndBumpVersion(
  manager: EntityManager,
  count: number,
  portableSql: boolean,
): Promise<number> {
  if (manager.connection.options.type === 'mysql' && !portableSql) {
    // One statement, one round trip: LAST_INSERT_ID(expr) hands the new sequence back in the
    // OK packet's insertId, also from a multi-table UPDATE (checked on MariaDB 10.11).
    const result = (await manager.query(
      'UPDATE change_state c, data_version d SET c.seq = LAST_INSERT_ID(c.seq + ?), ' +
        'd.version = d.version + 1 WHERE c.id = 1 AND d.id = 1',
      [count],
    )) as { insertId: number | string };
    const last = Number(result.insertId);
    // Without either row the join is empty: nothing taken, insertId 0 (the migrations add both).
    if (last < count) throw new Error('change_state or data_version has no row 1');
    return last;
  }
  let seq: number | string;
  if (manager.connection.options.type === 'mysql') {
    // A locking read sees the latest row: the one this UPDATE wrote and still holds.
    await manager.query('UPDATE change_state SET seq = seq + ? WHERE id = 1', [count]);
    [{ seq }] = (await manager.query(
      'SELECT seq FROM change_state WHERE id = 1 FOR UPDATE',
    )) as Array<{
      seq: number | string;
    }>;
  } else {
    // SQLite: one writer at a time, in process; the transaction makes the statements one.
    [{ seq }] = (await manager.query(
      'UPDATE change_state SET seq = seq + ? WHERE id = 1 RETURNING seq',
      [count],
    )) as Array<{ seq: number | string }>;
  }
  await manager.query('UPDATE data_version SET version = version + 1 WHERE id = 1');
  return Number(seq);
}

async function upsertRows(manager: EntityManager, rows: Array<Array<string | number>>) {
  const values = rows.map(() => '(?, ?, ?, ?, ?)').join(', ');
  const conflict =
    manager.connection.options.type === 'mysql'
      ? 'ON DUPLICATE KEY UPDATE seq = VALUES(seq), deleted = VALUES(deleted), changed_at = VALUES(changed_at)'
      : 'ON CONFLICT (kind, record_id) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, changed_at = excluded.changed_at';
  await manager.query(
    `INSERT INTO changes (kind, record_id, seq, deleted, changed_at) VALUES ${values} ${conflict}`,
    rows.flat(),
  );
}
