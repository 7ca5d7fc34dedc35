import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { WriteRequest } from '../common/http/write-request';
import { writeTransaction } from '../database/write-transaction';
import type { BatchTransaction } from './batch-transaction';
import { ChangeTracker, CommittedChange } from './change-tracker';
import { WriteUnit } from './write-unit';

/**
 * Runs a write transaction with its unit of work and the commit pipeline, in
 * one place and in the order it runs (docs/architecture.md "What a write does"):
 *
 * 1. the work, given a fresh WriteUnit per attempt (a retry starts afresh), after the change
 *    listeners' reads when the write asks for them first (`readAhead`);
 * 2. the change listeners (webhook outbox messages, the idempotency answer's kind and ID), then
 *    the rows they deferred (WriteUnit.defer: webhook deliveries), as multi-row INSERTs;
 * 3. the request's idempotency claim marked committed (a lost claim rolls the write back);
 * 4. sequence numbers, the data-version bump and the change rows (ChangeTracker.number);
 * 5. COMMIT (writeTransaction: retried on conflicts, queued on SQLite);
 * 6. after COMMIT: the bump reported to the request's VersionBumps, the numbered changes to
 *    the feed's read-ahead, then the unit's own after-commit work (deliveries to the sender).
 *
 * A write of an atomic batch's operation (`request.batch`) joins the batch's
 * transaction instead: steps 1 to 3 run for it there but for its deferred
 * rows, and the batch's own run writes those and numbers its changes with
 * the others', once for all, and commits them together.
 */
@Injectable()
export class Writes {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tracker: ChangeTracker,
  ) {}

  /**
   * Runs `work` in a write transaction for `request` (an HTTP write's
   * `RequestContext.write`; none for background jobs). `readCommitted`: see
   * writeTransaction. `readAhead`: the change listeners read what they need
   * first (ChangeListener.readAhead), for a write whose later locks make
   * other writers wait: an event create and its terms.
   */
  async run<R>(
    request: WriteRequest | undefined,
    work: (unit: WriteUnit) => Promise<R>,
    options: { readCommitted?: boolean; readAhead?: boolean } = {},
  ): Promise<R> {
    if (request?.batch) return request.batch.track(this.join(request.batch, request, work));
    let unit!: WriteUnit;
    let numbered: CommittedChange[] | undefined;
    const result = await writeTransaction(
      this.dataSource,
      async (manager) => {
        unit = new WriteUnit(manager, request);
        numbered = undefined;
        if (options.readAhead) await this.tracker.readAhead(unit);
        const answer = await work(unit);
        numbered = await this.beforeCommit(unit);
        return answer;
      },
      options,
    );
    if (numbered) {
      request?.bumps?.committedWithBump();
      this.tracker.committed(numbered);
    }
    unit.runCommitted();
    return result;
  }

  /**
   * Steps 1 to 3 in an atomic batch's transaction, with a unit of the write's
   * own (its kept rows, its request; its transaction reads are the batch's),
   * in a savepoint: a write that fails leaves nothing behind, as its own
   * transaction would, also when its caller goes on (an upsert that lost a
   * race). The batch's unit adopts what is left (changes, deferred rows,
   * after-commit work), written at its COMMIT. No retry here: a conflict
   * fails the batch's transaction, which is retried whole.
   */
  private async join<R>(
    batch: BatchTransaction,
    request: WriteRequest,
    work: (unit: WriteUnit) => Promise<R>,
  ): Promise<R> {
    let unit!: WriteUnit;
    const answer = await batch.unit.manager.transaction(async (manager) => {
      unit = new WriteUnit(manager, request, batch.unit);
      const result = await work(unit);
      const changes = unit.changes();
      if (changes.length > 0) await this.tracker.announce(unit, changes);
      if (request.claim?.active) await request.claim.markCommitted(unit.manager);
      return result;
    });
    // The batch's COMMIT bumps the version for it (beforeCommit); a rollback changed nothing.
    batch.unit.adopt(unit);
    return answer;
  }

  /** Steps 2 to 4, the transaction's last statements; the numbered changes, if any. */
  private async beforeCommit(unit: WriteUnit): Promise<CommittedChange[] | undefined> {
    const own = unit.changes();
    const changes = unit.changesToNumber();
    const { claim, bumps } = unit.request ?? {};
    if (own.length > 0) await this.tracker.announce(unit, own);
    await unit.writeDeferred();
    if (claim?.active) await claim.markCommitted(unit.manager);
    if (changes.length === 0) {
      // Reported before COMMIT: a write whose COMMIT reply is lost may still have committed.
      if (unit.mayHoldUntrackedWrites()) bumps?.committingWithoutBump();
      return undefined;
    }
    return this.tracker.number(unit.manager, changes);
  }
}
