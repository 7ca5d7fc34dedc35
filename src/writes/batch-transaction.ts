import { isRetryableConflict, isUniqueViolation } from '../common/errors/database-errors';
import type { WriteUnit } from './write-unit';

/**
 * The one transaction of an atomic batch (docs/api.md §18), which the writes
 * of its operations join instead of opening their own: the batch sets it on
 * each operation's WriteRequest (`batch`), and Writes.run runs the
 * operation's work on the batch's manager with a unit of its own, whose
 * changes and after-commit work the batch's unit adopts (numbered, and run,
 * at the batch's COMMIT). One per attempt of the batch's transaction.
 */
export class BatchTransaction {
  private readonly running = new Set<Promise<unknown>>();
  /** A deadlock or unique-key race met by a joined write: the batch's transaction is retried whole. */
  private retryable?: unknown;

  constructor(readonly unit: WriteUnit) {
    unit.writesOnlyThroughJoined();
  }

  /** Follows a joined write until it ends; a conflict its transaction would have retried is kept. */
  track<R>(write: Promise<R>): Promise<R> {
    const followed = write.catch((error: unknown) => {
      if (isUniqueViolation(error) || isRetryableConflict(error)) this.retryable ??= error;
      throw error;
    });
    const settled = followed.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    return followed;
  }

  /**
   * Waits for every joined write still running (an operation answered 503 by
   * its time-out may still write), then throws the conflict one met, if any,
   * so that the batch's transaction is retried like a single write's.
   */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
    if (this.retryable !== undefined) throw this.retryable;
  }
}
