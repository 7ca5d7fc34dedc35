import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { WriteRequest } from '../common/http/write-request';
import { writeTransaction } from '../database/write-transaction';
import { ChangeTracker, CommittedChange } from './change-tracker';
import { WriteUnit } from './write-unit';

/**
 * Runs a write transaction with its unit of work and the commit pipeline, in
 * one place and in the order it runs (docs/architecture.md "What a write does"):
 *
 * 1. the work, given a fresh WriteUnit per attempt (a retry starts afresh);
 * 2. the change listeners (webhook outbox messages, the idempotency answer's kind and ID);
 * 3. the request's idempotency claim marked committed (a lost claim rolls the write back);
 * 4. sequence numbers, the data-version bump and the change rows (ChangeTracker.number);
 * 5. COMMIT (writeTransaction: retried on conflicts, queued on SQLite);
 * 6. after COMMIT: the bump reported to the request's VersionBumps, the numbered changes to
 *    the feed's read-ahead, then the unit's own after-commit work (deliveries to the sender).
 */
@Injectable()
export class Writes {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tracker: ChangeTracker,
  ) {}

  /**
   * Runs `work` in a write transaction for `request` (an HTTP write's
   * `RequestContext.write`; none for background jobs). `readCommitted`: see writeTransaction.
   */
  async run<R>(
    request: WriteRequest | undefined,
    work: (unit: WriteUnit) => Promise<R>,
    options: { readCommitted?: boolean } = {},
  ): Promise<R> {
    let unit!: WriteUnit;
    let numbered: CommittedChange[] | undefined;
    const result = await writeTransaction(
      this.dataSource,
      async (manager) => {
        unit = new WriteUnit(manager, request);
        numbered = undefined;
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

  /** Steps 2 to 4, the transaction's last statements; the numbered changes, if any. */
  private async beforeCommit(unit: WriteUnit): Promise<CommittedChange[] | undefined> {
    const changes = unit.changes();
    const { claim, bumps } = unit.request ?? {};
    if (changes.length > 0) await this.tracker.announce(unit, changes);
    if (claim?.active) await claim.markCommitted(unit.manager);
    if (changes.length === 0) {
      // Reported before COMMIT: a write whose COMMIT reply is lost may still have committed.
      bumps?.committingWithoutBump();
      return undefined;
    }
    return this.tracker.number(unit.manager, changes);
  }
}
