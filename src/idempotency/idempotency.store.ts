import { randomBytes } from 'node:crypto';
import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeListener, ChangeTracker, TrackedChange } from '../writes/change-tracker';
import type { WriteUnit } from '../writes/write-unit';
import { ChangeKind } from '../writes/change-kinds';
import { nowEpoch } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import { writeTransaction } from '../database/write-transaction';
import { Claim } from './idempotency-claim';
import { IdempotencyKey } from './idempotency-key.entity';

export { Claim } from './idempotency-claim';

/** A stored answer: status, the headers that matter, the JSON body (text). */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

export type Begin =
  | { outcome: 'claimed'; claim: Claim }
  | { outcome: 'replay'; answer: StoredAnswer }
  | { outcome: 'reused' }
  | { outcome: 'in_use' }
  | { outcome: 'lost'; claim: Claim; kind: ChangeKind | null; id: number | null; status: number };

export interface BeginInput {
  caller: string;
  /** sha256 of caller and key. */
  id: string;
  requestHash: string;
  fingerprint: string;
  successStatus: number;
  kind?: ChangeKind;
}

/**
 * The idempotency keys of docs/api.md §13 in the database (table
 * `idempotency_keys`), so every instance sees the same claims.
 *
 * Why a write and its key commit together: the key row is claimed (`running`)
 * in a short transaction of its own (these transactions belong to no request);
 * the request's handler then runs with the claim attached to its request
 * (RequestContext.write), and every write transaction it makes turns the row
 * to `committed`, with the kind and ID of the record it wrote, as its last
 * statements before the numbering (Claim.markCommitted in the commit pipeline,
 * and this change listener). The
 * answer itself is rendered after the transaction (the services read the
 * record back once it is committed) and stored right after; if it is lost in
 * between (the process dies, the COMMIT's reply never arrives), the row still
 * says the write committed, so a retry never writes again: it gets the record
 * rendered afresh, which is then stored as the answer.
 */
@Injectable()
export class IdempotencyStore implements OnModuleInit, OnModuleDestroy, ChangeListener {
  private unsubscribe?: () => void;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly tracker: ChangeTracker,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.tracker.subscribe(this);
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /**
   * How long a claim is presumed alive. The client is answered by REQUEST_TIMEOUT_MS (503),
   * but the work goes on (queued writes, slow queries): at least a minute, so a live request
   * is not taken over; a dead one blocks its key no longer than that.
   */
  private get leaseMs(): number {
    return Math.max(2 * this.config.requestTimeoutMs, 60_000);
  }

  /** Claims the key, or says why not: replay, reused, in use, or a lost answer to render. */
  begin(input: BeginInput): Promise<Begin> {
    return writeTransaction(this.dataSource, async (manager) => {
      const repo = manager.getRepository(IdempotencyKey);
      const row = await repo.findOne({ where: { id: input.id } });
      const now = Date.now();
      const claim = new Claim(
        input.id,
        randomBytes(16).toString('hex'),
        input.successStatus,
        input.kind,
      );
      const fresh = (): IdempotencyKey => ({
        id: input.id,
        caller: input.caller,
        requestHash: input.requestHash,
        fingerprint: input.fingerprint,
        state: 'running',
        token: claim.token,
        leaseUntil: now + this.leaseMs,
        expiresAt: nowEpoch() + this.config.idempotencyTtlHours * 3600,
        status: input.successStatus,
        answerKind: null,
        answerId: null,
        headers: null,
        body: null,
      });
      if (!row || row.expiresAt <= nowEpoch()) {
        // An expired key counts as new. A claimer that raced us makes this INSERT a
        // unique violation: writeTransaction retries, and then sees its row.
        if (row) await repo.delete({ id: input.id, token: row.token });
        await repo.insert(fresh());
        return { outcome: 'claimed', claim };
      }
      if (row.requestHash !== input.requestHash || row.fingerprint !== input.fingerprint) {
        return { outcome: 'reused' };
      }
      if (row.state === 'done') {
        return {
          outcome: 'replay',
          answer: {
            status: row.status ?? 200,
            headers: JSON.parse(row.headers ?? '{}') as Record<string, string>,
            body: row.body,
          },
        };
      }
      if (row.leaseUntil > now) return { outcome: 'in_use' };
      // The claimer is gone (its process died, or it ended without storing an answer):
      // take the key over, unless another retry just did.
      const taken = await repo.update(
        { id: input.id, token: row.token },
        { token: claim.token, leaseUntil: now + this.leaseMs },
      );
      if (!taken.affected) return { outcome: 'in_use' };
      if (row.state === 'running') return { outcome: 'claimed', claim };
      return {
        outcome: 'lost',
        claim,
        kind: row.answerKind as ChangeKind | null,
        id: row.answerId,
        status: row.status ?? input.successStatus,
      };
    });
  }

  /**
   * Runs the handler, which hands the claim (attached to its request) to its
   * write transactions; once it is done, later writes are no longer the claim's.
   */
  async run<T>(claim: Claim, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      claim.active = false;
    }
  }

  /** Stores the answer with the key (docs/api.md §13): replays give it from now on. */
  async store(claim: Claim, answer: StoredAnswer): Promise<void> {
    await writeTransaction(this.dataSource, (manager) =>
      manager.getRepository(IdempotencyKey).update(
        { id: claim.id, token: claim.token },
        {
          state: 'done',
          status: answer.status,
          headers: JSON.stringify(answer.headers),
          body: answer.body,
        },
      ),
    );
  }

  /**
   * After a 5xx: the key is freed when nothing committed under it, so a retry
   * runs the request again; when a write did commit, the claim only ends its
   * lease, so the next retry renders the answer at once.
   */
  async release(claim: Claim): Promise<void> {
    await writeTransaction(this.dataSource, async (manager) => {
      const repo = manager.getRepository(IdempotencyKey);
      await repo.delete({ id: claim.id, token: claim.token, state: 'running' });
      await repo.update({ id: claim.id, token: claim.token }, { leaseUntil: 0 });
    });
  }

  /** Deletes up to `limit` expired keys; returns how many. */
  async purgeExpired(now = nowEpoch(), limit = 500): Promise<number> {
    const rows = (await this.dataSource.query(
      'SELECT id FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?',
      [now, limit],
    )) as Array<{ id: string }>;
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => row.id);
    await writeTransaction(this.dataSource, (manager) =>
      // Expiry checked again: a key reused as new since the SELECT is kept.
      manager.query(
        `DELETE FROM idempotency_keys WHERE expires_at <= ? AND id IN (${ids.map(() => '?').join(', ')})`,
        [now, ...ids],
      ),
    );
    return ids.length;
  }

  /** Change listener: the record the write made or changed, to render a lost answer. */
  async onChanges(unit: WriteUnit, changes: readonly TrackedChange[]): Promise<void> {
    const claim = unit.request?.claim;
    if (!(claim instanceof Claim) || !claim.active || !claim.kind) return;
    const ofKind = changes.filter((change) => change.kind === claim.kind && !change.via);
    const change =
      claim.successStatus === 201
        ? ofKind.find((c) => c.action === 'created')
        : ofKind.find((c) => c.action !== 'deleted');
    if (!change) return;
    await unit.manager
      .createQueryBuilder()
      .update(IdempotencyKey)
      .set({ answerKind: change.kind, answerId: change.id })
      .where('id = :id AND token = :token AND answer_id IS NULL', {
        id: claim.id,
        token: claim.token,
      })
      .execute();
  }
}
