import { Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { WriteRequest } from '../common/http/write-request';
import { mergeChanges, type TrackedChange } from './change-tracker';

/**
 * A kind of rows a write may keep for its own later work (the webhook records
 * of its changes), so they are not read twice: a typed slot of WriteUnit.
 */
export class KeptRows<T> {
  /** Only for the type: a slot's rows are `T`. */
  declare private readonly rows?: T;

  constructor(readonly name: string) {}
}

/**
 * Rows a write adds at its end (webhook deliveries), collected in its unit
 * and written by `write` just before COMMIT: the rows of every write of one
 * transaction (an atomic batch's operations) go out together, in the order
 * the writes added them, as multi-row INSERTs.
 */
export class DeferredRows<T> {
  constructor(
    readonly name: string,
    readonly write: (unit: WriteUnit, rows: T[]) => Promise<void>,
  ) {}
}

/**
 * A read that holds for the rest of its transaction once made (rows it
 * share-locks and no write of the transaction changes: the webhook
 * endpoints), so that the writes joined to one transaction (an atomic batch's
 * operations) make it once: a typed slot of WriteUnit.
 */
export class TransactionRead<T> {
  /** Only for the type: the read gives `T`. */
  declare private readonly value?: T;

  constructor(readonly name: string) {}
}

const logger = new Logger('WriteUnit');

/**
 * One attempt of a write transaction and everything it adds to it, passed
 * explicitly to the work (Writes.run): its manager, the HTTP request it
 * belongs to (idempotency claim, version bumps; none for jobs), the changes
 * it recorded, rows it kept and work to run once it has committed. A retry
 * starts with a fresh unit; nothing outlives the attempt.
 *
 * Kept rows may be trusted while no change was recorded after them: keep them
 * as the work's last read (after its last write and `record`), and the
 * commit pipeline's change listeners read them before anything that could
 * change them is written (the listeners write only outbox and key rows).
 * Every `record` drops what was kept, as the rows it describes may have moved.
 */
export class WriteUnit {
  private readonly recorded: TrackedChange[] = [];
  /** Changes of joined writes (an atomic batch's operations), already announced by them. */
  private readonly adopted: TrackedChange[] = [];
  private readonly kept = new Map<KeptRows<unknown>, unknown>();
  private readonly committedWork: Array<() => void> = [];
  // Keyed as DeferredRows<never>: any slot's type fits; each slot's rows are its own `T`.
  private readonly deferred = new Map<DeferredRows<never>, unknown[]>();
  private readonly reads = new Map<TransactionRead<unknown>, Promise<unknown>>();
  /**
   * Whether the transaction may hold rows no recorded change stands for (so
   * that it owes the data version a bump without changes, VersionBumps): a
   * write's own may; an atomic batch's only through a joined write that recorded none.
   */
  private untracked = true;

  /**
   * `joined`: the unit of the transaction this write joined (an atomic
   * batch's, BatchTransaction), which adopts what it leaves and shares its
   * transaction reads.
   */
  constructor(
    readonly manager: EntityManager,
    readonly request?: WriteRequest,
    private readonly joined?: WriteUnit,
  ) {}

  /**
   * Records records the write created, changed or deleted; they are numbered
   * and announced when its work is done, just before COMMIT. Call it for every
   * record whose visible fields the write moved, linked ones included (a term
   * whose count moved, an inline venue).
   */
  record(changes: readonly TrackedChange[]): void {
    if (changes.length === 0) return;
    for (const change of changes) this.recorded.push(change);
    this.kept.clear();
  }

  /** The recorded changes, one per record (mergeChanges): what the change listeners hear of. */
  changes(): TrackedChange[] {
    return mergeChanges(this.recorded);
  }

  /** What the transaction numbers: its own changes and those it adopted, one per record. */
  changesToNumber(): TrackedChange[] {
    return this.adopted.length === 0
      ? this.changes()
      : mergeChanges([...this.adopted, ...this.recorded]);
  }

  /**
   * Takes over what a write joined to this unit's transaction (an atomic
   * batch's operation, BatchTransaction) leaves for COMMIT: its changes,
   * already announced, to number with this unit's, its deferred rows and its after-commit work.
   */
  adopt(joined: WriteUnit): void {
    if (joined.changes().length === 0) this.untracked = true;
    for (const change of joined.changes()) this.adopted.push(change);
    for (const [slot, rows] of joined.deferred) this.defer(slot, rows as never[]);
    joined.deferred.clear();
    this.committedWork.push(...joined.committedWork.splice(0));
  }

  /** This unit's transaction writes only through the writes it adopts (an atomic batch's). */
  writesOnlyThroughJoined(): void {
    this.untracked = false;
  }

  /** Whether COMMIT without changes may still have written something (see `untracked`). */
  mayHoldUntrackedWrites(): boolean {
    return this.untracked;
  }

  /** Adds `rows` to what `slot` writes just before COMMIT (writeDeferred). */
  defer<T>(slot: DeferredRows<T>, rows: readonly T[]): void {
    if (rows.length === 0) return;
    const collected = this.deferred.get(slot);
    if (collected) for (const row of rows) collected.push(row);
    else this.deferred.set(slot, [...rows]);
  }

  /** Called by the commit pipeline before the numbering: writes the deferred rows, slot by slot. */
  async writeDeferred(): Promise<void> {
    for (const [slot, rows] of [...this.deferred]) {
      this.deferred.delete(slot);
      await slot.write(this, rows as never[]);
    }
  }

  /**
   * The value of `read` in this transaction: read at the first call, shared
   * by the writes joined to it. Only for reads that hold until COMMIT (see TransactionRead).
   */
  transactionRead<T>(slot: TransactionRead<T>, read: () => Promise<T>): Promise<T> {
    if (this.joined) return this.joined.transactionRead(slot, read);
    let value = this.reads.get(slot) as Promise<T> | undefined;
    if (!value) {
      value = read();
      this.reads.set(slot, value);
      // A failed read is not kept: the next write reads again (its failure is its own).
      value.catch(() => this.reads.delete(slot));
    }
    return value;
  }

  /** Keeps `rows` in `slot` for later work of this attempt (see the class comment for when). */
  keep<T>(slot: KeptRows<T>, rows: T): void {
    this.kept.set(slot, rows);
  }

  /** The rows kept in `slot`, unless a change was recorded since. */
  keptRows<T>(slot: KeptRows<T>): T | undefined {
    return this.kept.get(slot) as T | undefined;
  }

  /** Runs `work` once this attempt has committed (never after a rollback), in the order given. */
  afterCommit(work: () => void): void {
    this.committedWork.push(work);
  }

  /**
   * Called by the commit pipeline after COMMIT. The write has committed: a
   * failure of one piece is logged, never reported as the write's.
   */
  runCommitted(): void {
    for (const work of this.committedWork.splice(0)) {
      try {
        work();
      } catch (error) {
        logger.error(`after-commit work failed: ${(error as Error).message}`);
      }
    }
  }
}
