import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { appConfig } from '../config/app.config';
import { writeTransaction } from '../database/write-transaction';

/** Messages posted at once to one endpoint: a slow receiver holds at most these connections. */
export const MAX_POSTS_PER_ENDPOINT = 8;
/** A claim outlives the longest attempt by this much before another sender may take the row. */
const LEASE_MARGIN_MS = 15_000;

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

/** A lease as written into new deliveries' rows (WebhookClaims.leaseForNew). */
export interface DeliveryLease {
  owner: string;
  untilMs: number;
}

/**
 * The sender's claims on webhook deliveries (docs/api.md §15): leases taken
 * by a poll (rows locked with FOR UPDATE SKIP LOCKED on MySQL/MariaDB, or
 * leased by an UPDATE that re-checks the lease, so several instances never
 * claim the same row) or written with the deliveries of a write this process
 * sends itself (leaseForNew), and given back unattempted.
 * Each lease names this process (`owner`) and ends at its own instant.
 */
@Injectable()
export class WebhookClaims {
  /** Names this process's claims. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  /** The end of the last lease this process granted (leaseUntil). */
  private lastLeaseUntil = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
  ) {}

  /**
   * Claims up to `limit` due deliveries matching `where`, with a lease that
   * covers their wait behind the `ahead` deliveries of the endpoint already
   * claimed (MAX_POSTS_PER_ENDPOINT at a time), plus a margin.
   */
  claim(where: string, params: unknown[], limit: number, ahead: number): Promise<ClaimedRow[]> {
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
   * A lease for `count` deliveries this process is about to write and send
   * itself, behind the `ahead` deliveries already claimed for one of their
   * endpoints: WebhookOutbox writes it into their INSERT, so no poll (here or
   * on another instance) can claim them between the COMMIT and the take.
   */
  leaseForNew(count: number, ahead: number): DeliveryLease {
    return { owner: this.owner, untilMs: this.leaseUntil(Date.now(), ahead + count) };
  }

  /**
   * When a lease granted now for `queued` attempts ends: after their time
   * plus a margin, and later than every lease this process granted before, so
   * that (owner, lease_until_ms) names one lease (a claim reads its rows back by it).
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

  /** Gives claimed deliveries back without attempting them: the next poll may claim them. */
  async unclaim(rows: readonly ClaimedRow[]): Promise<void> {
    if (rows.length === 0) return;
    const ids = rows.map((row) => row.id);
    await writeTransaction(this.dataSource, (manager) =>
      manager.query(
        'UPDATE webhook_deliveries SET lease_until_ms = NULL, lease_owner = NULL ' +
          `WHERE id IN (${ids.map(() => '?').join(', ')}) AND lease_owner = ?`,
        [...ids, this.owner],
      ),
    );
  }
}
