import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { AsyncResource } from 'node:async_hooks';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DataSource, EntityManager } from 'typeorm';
import { appConfig } from '../config/app.config';
import { writeTransaction } from '../database/write-transaction';
import type { WriteUnit } from '../writes/write-unit';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { AttemptResult, postMessage } from './webhook-transport';

/** Deliveries this process holds claimed at once, over all endpoints. */
const MAX_CLAIMED = 256;
/** Deliveries claimed ahead for one endpoint: claims are few and large, so they keep up with writes. */
const MAX_CLAIMED_PER_ENDPOINT = 64;
/** An endpoint's queue is refilled when this many claimed deliveries (or fewer) are left. */
const REFILL_AT = MAX_CLAIMED_PER_ENDPOINT / 2;
/** Messages posted at once to one endpoint: a slow receiver holds at most these connections. */
const MAX_POSTS_PER_ENDPOINT = 8;
/**
 * How often other instances' messages are looked for, and retries whose
 * sender is gone. Retries this process schedules wake it when they fall due.
 */
const POLL_MS = 500;
/** A timer may fire a millisecond before Date.now() reaches its due time. */
const TIMER_SLACK_MS = 1;
/** A claim outlives the longest attempt by this much before another sender may take the row. */
const LEASE_MARGIN_MS = 15_000;
/** Retry delays grow by up to this share at random, so retries spread out. */
const JITTER = 0.2;

/** What one attempt came to, waiting to be recorded. */
interface Outcome {
  row: ClaimedRow;
  result: AttemptResult;
  attemptedAt: number;
  /** When its answer, time-out or refusal came: the retry delay counts from here. */
  endedAt: number;
}

/** A delivery this sender holds, with what it takes to post it. */
export interface ClaimedRow {
  id: number;
  attempts: number;
  forced: boolean;
  endpoint_id: number;
  webhook_id: string;
  body: string;
  url: string;
  secret: string;
  /** The endpoint's count of failed messages in a row when claimed. */
  consecutive_failures: number;
}

/**
 * Sends the outbox (docs/api.md §15): claims due deliveries with a lease (rows
 * locked with FOR UPDATE SKIP LOCKED on MySQL/MariaDB, or leased by an UPDATE
 * that re-checks the lease, so several instances never claim the same row), signs each per Standard
 * Webhooks and POSTs it, then records the answer, schedules the next attempt
 * or marks it failed, and disables endpoints that keep failing. A sender that
 * dies leaves its rows leased; the lease expires and another sends them again.
 */
@Injectable()
export class WebhookSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  /** Names this process's claims. */
  private readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries being taken after their COMMIT (`take`): shutdown waits for them. */
  private readonly taking = new Set<Promise<void>>();
  /** Per endpoint: deliveries claimed and not yet recorded. */
  private readonly claimed = new Map<number, number>();
  /** Per endpoint: messages being posted, and attempts waiting for a free connection. */
  private readonly posting = new Map<number, number>();
  private readonly waiting = new Map<number, Array<() => void>>();
  private readonly outcomes: Array<
    Outcome & { resolve: () => void; reject: (error: unknown) => void }
  > = [];
  private flushing: Promise<void> | undefined;
  /** The end of the last lease this process granted (leaseUntil). */
  private lastLeaseUntil = 0;
  private running = false;
  private again = false;
  /**
   * The last look for work left due deliveries unclaimed (an endpoint's queue
   * or the process was full): a finished attempt makes room, so it looks again.
   * Otherwise new work comes only with a commit here, a manual retry or a poll.
   */
  private backlog = false;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
  /**
   * When the retries this process scheduled fall due, earliest first (at most
   * one per claimed delivery): it wakes for each rather than at the next poll,
   * so the gap between attempts is the schedule's delay, not delay + poll.
   */
  private readonly retriesDue: number[] = [];
  private currentTick: Promise<void> = Promise.resolve();
  /**
   * The async context the sender was made in. Its timers and its takes after
   * a COMMIT run there, not in the request whose write woke it: they are no
   * part of that request (its trace, its read routing). Its transactions pass
   * no WriteRequest, so they never count as a request's.
   */
  private readonly ownContext = new AsyncResource('WebhookSender');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.webhooks.worker) return;
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * Graceful shutdown: claim nothing more, let the attempts being posted
   * finish and record them, and release the claims of those still waiting for
   * a connection (another instance, or the next start, sends them).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all([this.currentTick, ...this.taking]);
    for (const [endpoint, queue] of this.waiting) {
      for (const resume of queue.splice(0)) {
        this.posting.set(endpoint, (this.posting.get(endpoint) ?? 0) + 1);
        resume();
      }
    }
    await Promise.allSettled([...this.inFlight]);
  }

  /** Whether this process sends now (WEBHOOKS_WORKER, and not shutting down). */
  get sends(): boolean {
    return !this.stopped;
  }

  /** Called inside a transaction that stored messages: look for their deliveries after COMMIT. */
  wakeAfterCommit(unit: WriteUnit): void {
    unit.afterCommit(() => this.wake());
  }

  /**
   * Called inside a transaction that stored these deliveries (their rows as
   * written): after COMMIT this sender takes them as they are (`take`).
   */
  takeAfterCommit(unit: WriteUnit, deliveries: ClaimedRow[]): void {
    unit.afterCommit(() => this.startTake(deliveries));
  }

  /** `take` never rejects: it logs and leaves the deliveries to the poll. */
  private startTake(deliveries: ClaimedRow[]): void {
    const taking = this.ownContext.runInAsyncScope(() => this.take(deliveries));
    this.taking.add(taking);
    void taking.finally(() => this.taking.delete(taking));
  }

  /** Look for work now (new messages, a manual retry). */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number): void {
    const due = Date.now() + ms;
    if (this.timer !== undefined && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    const run = () => {
      this.timer = undefined;
      this.timerDue = Infinity;
      this.currentTick = this.tick();
    };
    this.timer = this.ownContext.runInAsyncScope(() => setTimeout(run, ms));
  }

  private async tick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        this.forgetRetriesDue(Date.now());
        await this.claimAndSend();
      } while (this.again && !this.stopped);
    } catch (error) {
      // The database may be away for a moment: try again at the next poll.
      this.logger.error(`claiming webhook deliveries failed: ${(error as Error).message}`);
    } finally {
      this.running = false;
      if (!this.stopped) this.schedule(this.nextLookMs());
    }
  }

  /** Until the next look for work: the next poll, or the next retry due before it. */
  private nextLookMs(): number {
    const next = this.retriesDue[0];
    if (next === undefined) return POLL_MS;
    return Math.min(POLL_MS, Math.max(0, next - Date.now()) + TIMER_SLACK_MS);
  }

  /** Retries due by `now` are claimed by the look starting now. */
  private forgetRetriesDue(now: number): void {
    let passed = 0;
    while (passed < this.retriesDue.length && this.retriesDue[passed] <= now) passed++;
    this.retriesDue.splice(0, passed);
  }

  /** A retry recorded here: look for work when it falls due. */
  private wakeAt(due: number): void {
    if (this.stopped) return;
    let at = this.retriesDue.length;
    while (at > 0 && this.retriesDue[at - 1] > due) at--;
    this.retriesDue.splice(at, 0, due);
    // Bounded by the claims: a look claims every retry due by then.
    if (this.retriesDue.length > MAX_CLAIMED) this.retriesDue.length = MAX_CLAIMED;
    this.schedule(Math.max(0, due - Date.now()) + TIMER_SLACK_MS);
  }

  private async claimAndSend(): Promise<void> {
    const endpoints: Array<{ id: number | string; enabled: number | string | boolean }> =
      await this.dataSource.query('SELECT id, enabled FROM webhook_endpoints');
    // Shuffled, so no endpoint is always served first when slots are short.
    const order = endpoints.sort(() => Math.random() - 0.5);
    this.backlog = false;
    for (const endpoint of order) {
      if (this.stopped) return;
      const id = Number(endpoint.id);
      const ahead = this.claimed.get(id) ?? 0;
      const room = Math.min(MAX_CLAIMED_PER_ENDPOINT - ahead, MAX_CLAIMED - this.inFlight.size);
      // Refilled once half the queue ahead is sent: a burst takes a few large claims,
      // not one transaction per finished attempt, and the connections never run dry.
      if (ahead > REFILL_AT || room <= 0) {
        this.backlog = true;
        continue;
      }
      // A disabled endpoint gets only manual retries and pings.
      const where = Number(endpoint.enabled) ? 'endpoint_id = ?' : 'endpoint_id = ? AND forced = 1';
      const rows = await this.claim(where, [id], room, ahead);
      if (rows.length === room) this.backlog = true;
      this.start(rows);
    }
  }

  /**
   * Claims up to `limit` due deliveries matching `where`, with a lease that
   * covers their wait behind the `ahead` deliveries of the endpoint already
   * claimed (MAX_POSTS_PER_ENDPOINT at a time), plus a margin.
   */
  private claim(
    where: string,
    params: unknown[],
    limit: number,
    ahead: number,
  ): Promise<ClaimedRow[]> {
    const now = Date.now();
    // SKIP LOCKED passes over rows another sender is claiming. Without it (SQLite's one
    // writer, or DATABASE_PORTABLE_SQL for engines that lack it) the lease UPDATE re-checks
    // each row and the rows it leased are read back by this lease's owner and end.
    const skipLocked = this.dataSource.options.type === 'mysql' && !this.config.portableSql;
    const lock = skipLocked ? ' FOR UPDATE SKIP LOCKED' : '';
    return writeTransaction(
      this.dataSource,
      async (manager) => {
        const due: Array<{ id: number | string }> = await manager.query(
          `SELECT id FROM webhook_deliveries WHERE ${where} AND status = 'pending' ` +
            'AND next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms < ?) ' +
            `ORDER BY next_attempt_ms LIMIT ${Number(limit)}${lock}`,
          [...params, now, now],
        );
        if (due.length === 0) return [];
        const ids = due.map((row) => Number(row.id));
        const marks = ids.map(() => '?').join(', ');
        const leaseUntil = this.leaseUntil(now, ahead + ids.length);
        await manager.query(
          `UPDATE webhook_deliveries SET lease_until_ms = ?, lease_owner = ? WHERE id IN (${marks})` +
            " AND status = 'pending' AND (lease_until_ms IS NULL OR lease_until_ms < ?)",
          [leaseUntil, this.owner, ...ids, now],
        );
        const rows: ClaimedRow[] = await manager.query(
          'SELECT d.id, d.attempts, d.forced, d.endpoint_id, d.webhook_id, d.body, ' +
            'e.url, e.secret, e.consecutive_failures ' +
            'FROM webhook_deliveries d ' +
            'JOIN webhook_endpoints e ON e.id = d.endpoint_id ' +
            `WHERE d.id IN (${marks}) AND d.lease_owner = ? AND d.lease_until_ms = ?`,
          [...ids, this.owner, leaseUntil],
        );
        return rows.map((row) => ({
          ...row,
          id: Number(row.id),
          attempts: Number(row.attempts),
          forced: Boolean(Number(row.forced)),
          endpoint_id: Number(row.endpoint_id),
          consecutive_failures: Number(row.consecutive_failures),
        }));
      },
      // No gap locks: writes inserting new deliveries never wait for a claim.
      { readCommitted: true },
    );
  }

  /**
   * Deliveries this process has just committed go straight into its queues:
   * one UPDATE leases those nobody has leased meanwhile (a poll, here or on
   * another instance, may have been quicker), instead of a claim transaction
   * that finds and reads them again. When the queues are full, or the UPDATE
   * fails, they are left to the poll, like any other instance's deliveries.
   */
  private async take(deliveries: ClaimedRow[]): Promise<void> {
    if (this.stopped) return;
    const perEndpoint = new Map<number, number>();
    for (const row of deliveries)
      perEndpoint.set(row.endpoint_id, (perEndpoint.get(row.endpoint_id) ?? 0) + 1);
    let ahead = 0;
    for (const [endpoint, count] of perEndpoint) {
      const claimed = this.claimed.get(endpoint) ?? 0;
      if (claimed + count > MAX_CLAIMED_PER_ENDPOINT) return this.wake();
      ahead = Math.max(ahead, claimed);
    }
    if (this.inFlight.size + deliveries.length > MAX_CLAIMED) return this.wake();

    const now = Date.now();
    const leaseUntil = this.leaseUntil(now, ahead + deliveries.length);
    // One UPDATE for all: its count of rows tells whether this sender holds every one. When
    // another sender's poll (or this one's) was quicker for some, the rows this lease holds are
    // read back: no other lease of this process ends at the same instant (leaseUntil).
    const lease = async (manager: EntityManager) => {
      const ids = deliveries.map((row) => row.id);
      const leased = await manager
        .createQueryBuilder()
        .update(WebhookDelivery)
        .set({ leaseUntilMs: leaseUntil, leaseOwner: this.owner })
        .where("id IN (:...ids) AND status = 'pending'", { ids })
        .andWhere('(lease_until_ms IS NULL OR lease_until_ms < :now)', { now })
        .execute();
      if (leased.affected === ids.length) return deliveries;
      const mine: Array<{ id: number | string }> = await manager.query(
        `SELECT id FROM webhook_deliveries WHERE id IN (${ids.map(() => '?').join(', ')}) ` +
          'AND lease_owner = ? AND lease_until_ms = ?',
        [...ids, this.owner, leaseUntil],
      );
      const held = new Set(mine.map((row) => Number(row.id)));
      return deliveries.filter((row) => held.has(row.id));
    };
    try {
      // SQLite's single connection must wait for its turn in the write queue.
      this.start(
        this.dataSource.options.type === 'mysql'
          ? await lease(this.dataSource.manager)
          : await writeTransaction(this.dataSource, lease),
      );
    } catch (error) {
      this.logger.error(`taking webhook deliveries failed: ${(error as Error).message}`);
      this.wake();
    }
  }

  /**
   * When a lease granted now for `queued` attempts ends: after their time
   * plus a margin, and later than every lease this process granted before, so
   * that (owner, lease_until_ms) names one lease (see take).
   */
  private leaseUntil(now: number, queued: number): number {
    this.lastLeaseUntil = Math.max(
      now + this.leaseMs(queued) + LEASE_MARGIN_MS,
      this.lastLeaseUntil + 1,
    );
    return this.lastLeaseUntil;
  }

  /** Time for `queued` attempts to one endpoint, MAX_POSTS_PER_ENDPOINT at a time. */
  private leaseMs(queued: number): number {
    return Math.ceil(queued / MAX_POSTS_PER_ENDPOINT) * this.config.webhooks.timeoutMs;
  }

  private start(rows: ClaimedRow[]): void {
    for (const row of rows) {
      const endpoint = row.endpoint_id;
      this.claimed.set(endpoint, (this.claimed.get(endpoint) ?? 0) + 1);
      let posting = false;
      const acquire = () => this.acquire(endpoint).then(() => void (posting = true));
      // The connection is free once the answer is in; recording it does not hold the receiver.
      const release = () => {
        if (posting) this.release(endpoint);
        posting = false;
      };
      const attempt: Promise<void> = this.attempt(row, acquire, release)
        .catch((error: unknown) =>
          // The lease expires and the delivery is attempted again.
          this.logger.error(
            `recording webhook delivery ${row.id} failed: ${(error as Error).message}`,
          ),
        )
        .finally(() => {
          this.inFlight.delete(attempt);
          release();
          const left = (this.claimed.get(endpoint) ?? 1) - 1;
          if (left > 0) this.claimed.set(endpoint, left);
          else this.claimed.delete(endpoint);
          // Room to claim what the last claim had to leave.
          if (this.backlog) this.wake();
        });
      this.inFlight.add(attempt);
    }
  }

  /** Waits for one of the endpoint's MAX_POSTS_PER_ENDPOINT connections. */
  private acquire(endpoint: number): Promise<void> {
    const busy = this.posting.get(endpoint) ?? 0;
    if (busy < MAX_POSTS_PER_ENDPOINT) {
      this.posting.set(endpoint, busy + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(endpoint) ?? [];
      queue.push(resolve);
      this.waiting.set(endpoint, queue);
    });
  }

  /** Hands the connection to the next attempt waiting for it, or frees it. */
  private release(endpoint: number): void {
    const next = this.waiting.get(endpoint)?.shift();
    if (next) return next();
    this.waiting.delete(endpoint);
    const busy = (this.posting.get(endpoint) ?? 1) - 1;
    if (busy > 0) this.posting.set(endpoint, busy);
    else this.posting.delete(endpoint);
  }

  private async attempt(
    row: ClaimedRow,
    acquire: () => Promise<void>,
    release: () => void,
  ): Promise<void> {
    await acquire();
    if (this.stopped) {
      release();
      return this.unclaim(row);
    }
    const attemptedAt = new Date();
    let result: AttemptResult;
    try {
      const signature = new Webhook(row.secret).sign(row.webhook_id, attemptedAt, row.body);
      result = await postMessage(
        row.url,
        {
          'content-type': 'application/json',
          'user-agent': 'calendar-events-webhooks/1',
          'webhook-id': row.webhook_id,
          'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
          'webhook-signature': signature,
        },
        row.body,
        {
          timeoutMs: this.config.webhooks.timeoutMs,
          allowHttp: this.config.webhooks.allowHttp,
          allowPrivateTargets: this.config.webhooks.allowPrivateTargets,
        },
      );
    } catch (error) {
      result = { statusCode: null, response: null, error: (error as Error).message.slice(0, 255) };
    }
    release();
    await this.record({ row, result, attemptedAt: attemptedAt.getTime(), endedAt: Date.now() });
  }

  /** Gives a claimed delivery back without attempting it. */
  private async unclaim(row: ClaimedRow): Promise<void> {
    await writeTransaction(this.dataSource, (manager) =>
      manager.query(
        'UPDATE webhook_deliveries SET lease_until_ms = NULL, lease_owner = NULL WHERE id = ? AND lease_owner = ?',
        [row.id, this.owner],
      ),
    );
  }

  /**
   * Stores the outcome of an attempt. Outcomes that arrive while a batch is
   * being written go into the next one: one transaction records many attempts.
   */
  private record(outcome: Outcome): Promise<void> {
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
    const delay = retrySchedule[attempts - 1];
    const status = delay !== undefined ? 'pending' : 'failed';
    const next =
      status === 'pending' ? endedAt + Math.round(delay * (1 + Math.random() * JITTER)) : null;
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
