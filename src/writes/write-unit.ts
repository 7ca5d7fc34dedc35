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

  constructor(
    readonly manager: EntityManager,
    readonly request?: WriteRequest,
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
   * already announced, to number with this unit's, and its after-commit work.
   */
  adopt(joined: WriteUnit): void {
    for (const change of joined.changes()) this.adopted.push(change);
    this.committedWork.push(...joined.committedWork.splice(0));
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
