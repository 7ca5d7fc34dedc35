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
import { DataSource } from 'typeorm';
import { appConfig } from '../config/app.config';
import type { WriteUnit } from '../writes/write-unit';
import { ClaimedRow, DeliveryLease, MAX_POSTS_PER_ENDPOINT, WebhookClaims } from './webhook-claims';
import { WebhookOutcomes } from './webhook-outcomes';
import { postDelivery } from './webhook-transport';

/** Deliveries this process holds claimed at once, over all endpoints. */
const MAX_CLAIMED = 256;
/** Deliveries claimed ahead for one endpoint: claims are few and large, so they keep up with writes. */
const MAX_CLAIMED_PER_ENDPOINT = 64;
/** An endpoint's queue is refilled when this many claimed deliveries (or fewer) are left. */
const REFILL_AT = MAX_CLAIMED_PER_ENDPOINT / 2;
/**
 * How often other instances' messages are looked for, and retries whose
 * sender is gone. Retries this process schedules wake it when they fall due.
 */
const POLL_MS = 500;
/** A timer may fire a millisecond before Date.now() reaches its due time. */
const TIMER_SLACK_MS = 1;

/**
 * Sends the outbox (docs/api.md §15): the loop. It looks for work on a poll,
 * when a retry it scheduled falls due, or at a commit that stored messages;
 * claims due deliveries (WebhookClaims) into per-endpoint queues, signs each
 * per Standard Webhooks and POSTs it, a few at a time per endpoint, and hands
 * what each attempt came to to WebhookOutcomes. A sender that dies leaves its
 * rows leased; the lease expires and another sends them again.
 */
@Injectable()
export class WebhookSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries being taken after their COMMIT (`take`): shutdown waits for them. */
  private readonly taking = new Set<Promise<void>>();
  /** Per endpoint: deliveries claimed and not yet recorded. */
  private readonly claimed = new Map<number, number>();
  /** Per endpoint: messages being posted, and attempts waiting for a free connection. */
  private readonly posting = new Map<number, number>();
  private readonly waiting = new Map<number, Array<() => void>>();
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
  private readonly outcomes: WebhookOutcomes;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly claims: WebhookClaims,
  ) {
    this.outcomes = new WebhookOutcomes(dataSource, config, claims.owner, this.logger, (due) =>
      this.wakeAt(due),
    );
  }

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
   * A lease for deliveries about to be written by this process (their
   * endpoints' IDs, one per delivery), when it sends and its queues have room
   * for them now; undefined leaves them to the poll. WebhookOutbox writes the
   * lease into their INSERT and hands them over with takeAfterCommit.
   */
  leaseForNew(endpointIds: number[]): DeliveryLease | undefined {
    if (this.stopped) return undefined;
    const ahead = this.aheadOf(endpointIds);
    return ahead === undefined ? undefined : this.claims.leaseForNew(endpointIds.length, ahead);
  }

  /**
   * Called inside the transaction that wrote these deliveries with a lease
   * of leaseForNew (their rows as written): after COMMIT this sender takes
   * them as they are (`take`).
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
      const rows = await this.claims.claim(where, [id], room, ahead);
      if (rows.length === room) this.backlog = true;
      this.start(rows);
    }
  }

  /**
   * Deliveries this process has just committed, leased to it in their
   * INSERT, go straight into its queues: no claim finds and reads them again.
   * When the queues filled meanwhile (other writes' deliveries, a poll), or
   * the process is shutting down, their lease is given back for the poll.
   */
  private async take(deliveries: ClaimedRow[]): Promise<void> {
    if (!this.stopped && this.aheadOf(deliveries.map((row) => row.endpoint_id)) !== undefined) {
      return this.start(deliveries);
    }
    try {
      await this.claims.unclaim(deliveries);
    } catch (error) {
      // Their lease runs out and a poll sends them then.
      this.logger.error(`giving webhook deliveries back failed: ${(error as Error).message}`);
    }
    this.wake();
  }

  /**
   * The most deliveries already claimed for one of these endpoints (one
   * entry per delivery to add), or undefined when the queues have no room
   * for them: MAX_CLAIMED_PER_ENDPOINT per endpoint, MAX_CLAIMED in all.
   */
  private aheadOf(endpointIds: number[]): number | undefined {
    if (this.inFlight.size + endpointIds.length > MAX_CLAIMED) return undefined;
    const perEndpoint = new Map<number, number>();
    for (const id of endpointIds) perEndpoint.set(id, (perEndpoint.get(id) ?? 0) + 1);
    let ahead = 0;
    for (const [endpoint, count] of perEndpoint) {
      const claimed = this.claimed.get(endpoint) ?? 0;
      if (claimed + count > MAX_CLAIMED_PER_ENDPOINT) return undefined;
      ahead = Math.max(ahead, claimed);
    }
    return ahead;
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
      return this.claims.unclaim([row]);
    }
    const attemptedAt = new Date();
    const result = await postDelivery(row, attemptedAt, {
      timeoutMs: this.config.webhooks.timeoutMs,
      allowHttp: this.config.webhooks.allowHttp,
      allowPrivateTargets: this.config.webhooks.allowPrivateTargets,
    });
    release();
    await this.outcomes.record({
      row,
      result,
      attemptedAt: attemptedAt.getTime(),
      endedAt: Date.now(),
    });
  }
}
