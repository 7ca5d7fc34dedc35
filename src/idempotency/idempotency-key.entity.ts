import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochColumn, LongTextColumn } from '../database/columns';

const bigint = { to: (v: number) => v, from: (v: string | number) => Number(v) };

/** Where a key is: claimed by a running request, its write committed, or its answer stored. */
export type IdempotencyState = 'running' | 'committed' | 'done';

/**
 * One `Idempotency-Key` of one caller (docs/api.md §13) and the answer it got.
 * The primary key is a hash of caller and key, so the claim of a key is one
 * INSERT that a second instance cannot repeat.
 */
@Entity('idempotency_keys')
@Index('idx_idempotency_keys_expires', ['expiresAt'])
export class IdempotencyKey {
  /** sha256 hex of caller and key. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  /** `user:<id>` or `anonymous`. */
  @Column({ type: 'varchar', length: 32 })
  caller: string;

  /** sha256 hex of method and path (with the query string). */
  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash: string;

  /** sha256 hex of the body as canonical JSON. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  @Column({ type: 'varchar', length: 10 })
  state: IdempotencyState;

  /** Names the claim: a write commits only while its request still holds it. */
  @Column({ type: 'varchar', length: 32 })
  token: string;

  /** Until when (epoch ms) the claiming request is presumed running; afterwards it counts as gone. */
  @Column({ name: 'lease_until', type: 'bigint', transformer: bigint })
  leaseUntil: number;

  @EpochColumn({ name: 'expires_at' })
  expiresAt: number;

  /** The answer's status (while running: the route's success status). */
  @Column({ type: 'int', nullable: true })
  status: number | null;

  /** The record the write made or changed, to render the answer again if it was lost. */
  @Column({ name: 'answer_kind', type: 'varchar', length: 12, nullable: true })
  answerKind: string | null;

  @Column({ name: 'answer_id', type: 'int', nullable: true })
  answerId: number | null;

  /** JSON object of the answer's headers that matter (Location, ETag). */
  @Column({ type: 'text', nullable: true })
  headers: string | null;

  /** The answer's JSON body. */
  @LongTextColumn({ nullable: true })
  body: string | null;
}
