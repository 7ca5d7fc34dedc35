import { Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { DataSource, EntityManager } from 'typeorm';
import { appConfig } from '../config/app.config';
import { writeTransaction } from '../database/write-transaction';
import type { ClaimedRow } from './webhook-claims';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import type { AttemptResult } from './webhook-transport';

/** Retry delays grow by up to this share at random, so retries spread out. */
const JITTER = 0.2;

/** What one attempt came to, waiting to be recorded. */
export interface Outcome {
  row: ClaimedRow;
  result: AttemptResult;
  attemptedAt: number;
  /** When its answer, time-out or refusal came: the retry delay counts from here. */
  endedAt: number;
}

/**
 * Records the sender's attempts (docs/api.md §15): the answer, the next
 * attempt on the retry schedule or failed (at once when refused by policy,
 * AttemptResult.refused), and endpoints disabled after too
 * many failed messages in a row. Outcomes that arrive while a batch is being
 * written go into the next one. One per sender: it holds that sender's
 * batch, and tells it (`wakeAt`) when each retry it scheduled falls due.
 */
export class WebhookOutcomes {
  private readonly outcomes: Array<
    Outcome & { resolve: () => void; reject: (error: unknown) => void }
  > = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: ConfigType<typeof appConfig>,
    private readonly owner: string,
    private readonly logger: Logger,
    private readonly wakeAt: (due: number) => void,
  ) {}

  /**
   * Stores the outcome of an attempt. Outcomes that arrive while a batch is
   * being written go into the next one: one transaction records many attempts.
   */
  record(outcome: Outcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.outcomes.push({ ...outcome, resolve, reject });
      this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
    });
  }

  private async flush(): Promise<void> {
    while (this.outcomes.length > 0) {
      const batch = this.outcomes.splice(0);
      try {
        // The common case on MySQL, all delivered: its few UPDATEs need no transaction (each
        // holds on its own; one lost in between leaves its rows leased, to be sent again).
        // SQLite's single connection must wait for its turn in the write queue.
        if (this.dataSource.options.type === 'mysql' && batch.every(isDelivered)) {
          await this.storeDelivered(this.dataSource.manager, batch);
          for (const outcome of batch) outcome.resolve();
          continue;
        }
        const retries: number[] = [];
        const disabled = await writeTransaction(this.dataSource, async (manager) => {
          const off: number[] = [];
          retries.length = 0;
          await this.storeDelivered(manager, batch.filter(isDelivered));
          for (const outcome of batch) {
            if (isDelivered(outcome)) continue;
            const stored = await this.store(manager, outcome);
            if (stored.disabled) off.push(outcome.row.endpoint_id);
            if (stored.retryAt !== null) retries.push(stored.retryAt);
          }
          return off;
        });
        for (const due of retries) this.wakeAt(due);
        for (const endpointId of disabled) {
          this.logger.warn(
            `webhook ${endpointId} disabled after ${this.config.webhooks.disableAfter} failed messages in a row`,
          );
        }
        for (const outcome of batch) outcome.resolve();
      } catch (error) {
        for (const outcome of batch) outcome.reject(error);
      }
    }
  }

  /**
   * Delivered attempts, the bulk of a busy sender's outcomes: one UPDATE per
   * distinct answer (a receiver mostly answers alike) instead of one per
   * delivery, for the rows this sender still holds; then the failure counts
   * of their endpoints are reset where there is one to reset.
   */
  private async storeDelivered(manager: EntityManager, outcomes: Outcome[]): Promise<void> {
    const byAnswer = new Map<string, Outcome[]>();
    for (const outcome of outcomes) {
      const key = JSON.stringify([outcome.result.statusCode, outcome.result.response]);
      byAnswer.set(key, [...(byAnswer.get(key) ?? []), outcome]);
    }
    for (const group of byAnswer.values()) {
      const { statusCode, response } = group[0].result;
      const ids = group.map((outcome) => outcome.row.id);
      const marks = ids.map(() => '?').join(', ');
      await manager.query(
        "UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, forced = 0, " +
          'last_status_code = ?, last_response = ?, last_error = NULL, ' +
          `last_attempt_ms = CASE id ${ids.map(() => 'WHEN ? THEN ?').join(' ')} END, ` +
          'next_attempt_ms = NULL, lease_until_ms = NULL, lease_owner = NULL ' +
          `WHERE id IN (${marks}) AND lease_owner = ?`,
        [
          statusCode,
          response,
          ...group.flatMap((outcome) => [outcome.row.id, outcome.attemptedAt]),
          ...ids,
          this.owner,
        ],
      );
    }
    // Only when there is a count to reset: the endpoint's row lock would make every
    // content write that reads the endpoints with a lock wait for this batch.
    const failing = new Set(
      outcomes.filter((o) => o.row.consecutive_failures !== 0).map((o) => o.row.endpoint_id),
    );
    for (const endpointId of failing) {
      await manager.query(
        'UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = ? AND consecutive_failures <> 0',
        [endpointId],
      );
    }
  }

  /**
   * One attempt's outcome (not delivered), if this sender still holds the
   * claim; whether it disabled the endpoint, and when the retry is due.
   */
  private async store(
    manager: EntityManager,
    { row, result, attemptedAt, endedAt }: Outcome,
  ): Promise<{ disabled: boolean; retryAt: number | null }> {
    const { retrySchedule, disableAfter } = this.config.webhooks;
    const attempts = row.attempts + 1;
    // A refusal by policy (a private address) fails at once: the schedule could not change it.
    const delay = result.refused ? undefined : retrySchedule[attempts - 1];
    const next =
      delay !== undefined ? endedAt + Math.round(delay * (1 + Math.random() * JITTER)) : null;
    const status = next !== null ? 'pending' : 'failed';
    const update = await manager
      .createQueryBuilder()
      .update(WebhookDelivery)
      .set({
        status,
        attempts,
        // A manual retry keeps going along the schedule even while the endpoint is disabled.
        forced: status === 'pending' && row.forced,
        lastStatusCode: result.statusCode,
        lastResponse: result.response,
        lastError: result.error,
        lastAttemptMs: attemptedAt,
        nextAttemptMs: next,
        leaseUntilMs: null,
        leaseOwner: null,
      })
      .where('id = :id AND lease_owner = :owner', { id: row.id, owner: this.owner })
      .execute();
    if (!update.affected) return { disabled: false, retryAt: null };
    if (status !== 'failed') return { disabled: false, retryAt: next };
    await manager.query(
      'UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = ?',
      [row.endpoint_id],
    );
    if (disableAfter === 0) return { disabled: false, retryAt: null };
    const off = await manager
      .createQueryBuilder()
      .update(WebhookEndpoint)
      .set({ enabled: false })
      .where('id = :id AND enabled = 1 AND consecutive_failures >= :limit', {
        id: row.endpoint_id,
        limit: disableAfter,
      })
      .execute();
    return { disabled: Boolean(off.affected), retryAt: null };
  }
}

/** A 2xx answer: the message is delivered. */
function isDelivered({ result }: Outcome): boolean {
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
}
