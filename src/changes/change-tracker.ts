import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { currentVersionBumps, VersionBumps } from '../common/cache/version-bumps';
import { appConfig } from '../config/app.config';
import { nowEpoch } from '../common/time/dates';
import { isWriteTransaction, onBeforeCommit } from '../database/write-transaction';
import type { ChangeKind } from './change-kinds';

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
 * Subscribers to every write (the webhooks outbox): called once per write
 * transaction with its changes, inside that transaction, before it commits.
 * Whatever the listener writes commits or rolls back with the write; an
 * error rolls the write back.
 */
export interface ChangeListener {
  onChanges(manager: EntityManager, changes: readonly TrackedChange[]): Promise<void>;
}

/** A change as the feed numbered it, told to commit listeners once its write committed. */
export interface CommittedChange {
  kind: ChangeKind;
  id: number;
  seq: number;
  deleted: boolean;
}

const pending = new WeakMap<EntityManager, TrackedChange[]>();

/**
 * Records changes of the write transaction `manager` belongs to; they are
 * stored (and passed to the listeners) when its work is done, just before
 * COMMIT. Call it for every record whose visible fields the write moved,
 * including linked ones (a term whose count moved, an inline venue).
 */
export function recordChanges(manager: EntityManager, changes: readonly TrackedChange[]): void {
  if (!isWriteTransaction(manager)) {
    throw new Error('recordChanges needs the manager of a running writeTransaction');
  }
  pending.set(manager, [...(pending.get(manager) ?? []), ...changes]);
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
 * The change tracking inside every write transaction (docs/api.md §12). At the
 * end of the transaction it runs the listeners, then, as its LAST
 * statements, takes a block of sequence numbers from the single
 * `change_state` row, bumping the shared data version in the same statement,
 * and upserts one `changes` row per record. The row lock of that UPDATE is
 * held until COMMIT, so a transaction that takes numbers after another waits
 * for its commit: sequence order is commit order, and a reader never sees a
 * number while a smaller one is still uncommitted. Only this tail of each
 * write is serialised. The version moves atomically with the data; the
 * request's VersionBumps learn which transactions bumped it, so
 * WriteVersionInterceptor does not bump again.
 */
@Injectable()
export class ChangeTracker implements OnModuleInit, OnModuleDestroy, EntitySubscriberInterface {
  private readonly listeners: ChangeListener[] = [];
  private readonly commitListeners: Array<(changes: CommittedChange[]) => void> = [];
  private unregister?: () => void;
  /** Transactions that bumped the version, until their COMMIT: whose request to tell. */
  private readonly bumping = new WeakMap<QueryRunner, VersionBumps>();
  /** The numbered changes of transactions about to commit, for the commit listeners. */
  private readonly numbered = new WeakMap<QueryRunner, CommittedChange[]>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
  ) {
    dataSource.subscribers.push(this);
  }

  onModuleInit(): void {
    this.unregister = onBeforeCommit(this.dataSource, (manager) => this.flush(manager));
  }

  onModuleDestroy(): void {
    this.unregister?.();
  }

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** `listener` hears of every write's changes after its COMMIT, on this instance (not called for others'). */
  onCommitted(listener: (changes: CommittedChange[]) => void): void {
    this.commitListeners.push(listener);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    this.bumpsOf(event.queryRunner)?.committedWithBump();
    const changes = this.numbered.get(event.queryRunner);
    this.numbered.delete(event.queryRunner);
    if (changes) for (const listener of this.commitListeners) listener(changes);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    this.bumpsOf(event.queryRunner);
    this.numbered.delete(event.queryRunner);
  }

  /** Takes the bumps a transaction of `runner` reports to (a retry or the next transaction starts afresh). */
  private bumpsOf(runner: QueryRunner): VersionBumps | undefined {
    const bumps = this.bumping.get(runner);
    this.bumping.delete(runner);
    return bumps;
  }

  private async flush(manager: EntityManager): Promise<void> {
    const changes = mergeChanges(pending.get(manager) ?? []);
    pending.delete(manager);
    const bumps = currentVersionBumps();
    if (manager.queryRunner) {
      this.bumping.delete(manager.queryRunner);
      this.numbered.delete(manager.queryRunner);
    }
    if (changes.length === 0) {
      // Reported before COMMIT: a write whose COMMIT reply is lost may still have committed.
      bumps?.committingWithoutBump();
      return;
    }
    for (const listener of this.listeners) await listener.onChanges(manager, changes);
    const last = await allocateSequenceAndBumpVersion(
      manager,
      changes.length,
      this.config.portableSql,
    );
    if (bumps && manager.queryRunner) this.bumping.set(manager.queryRunner, bumps);
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
    if (this.commitListeners.length > 0 && manager.queryRunner) {
      this.numbered.set(
        manager.queryRunner,
        changes.map((change, i) => ({
          kind: change.kind,
          id: change.id,
          seq: first + i,
          deleted: change.action === 'deleted',
        })),
      );
    }
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
