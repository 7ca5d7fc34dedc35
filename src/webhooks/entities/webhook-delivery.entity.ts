import { Column, Entity, Index } from 'typeorm';
import { EpochColumn, IdColumn } from '../../database/columns';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The outbox: one message to one endpoint, written in the transaction of the
 * change it announces, with the message itself (its body is signed and sent
 * unchanged on every attempt), its state, attempts and the last answer.
 */
@Entity('webhook_deliveries')
@Index('idx_webhook_deliveries_log', ['endpointId', 'id'])
@Index('idx_webhook_deliveries_due', ['endpointId', 'status', 'nextAttemptMs'])
@Index('idx_webhook_deliveries_message', ['webhookId'])
@Index('idx_webhook_deliveries_finished', ['status', 'lastAttemptMs'])
export class WebhookDelivery {
  @IdColumn()
  id: number;

  @Column({ name: 'endpoint_id', type: 'int' })
  endpointId: number;

  /** The `webhook-id` header: the same on every attempt, and for every endpoint of the message. */
  @Column({ name: 'webhook_id', type: 'varchar', length: 64 })
  webhookId: string;

  /** The message type (`event.created`, …). */
  @Column({ type: 'varchar', length: 64 })
  type: string;

  /** The signed body; not read unless asked for (the deliveries log does not show it). */
  @Column({ type: 'text', select: false })
  body: string;

  @Column({ type: 'varchar', length: 16 })
  status: DeliveryStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** A manual retry or ping: sent even while the endpoint is disabled. */
  @Column({ type: 'boolean', default: false })
  forced: boolean;

  @Column({ name: 'last_status_code', type: 'int', nullable: true })
  lastStatusCode: number | null;

  /** The receiver's answer, at most 1 KiB. */
  @Column({ name: 'last_response', type: 'text', nullable: true })
  lastResponse: string | null;

  /** Why the last attempt got no HTTP answer (time-out, refused target, …). */
  @Column({ name: 'last_error', type: 'varchar', length: 255, nullable: true })
  lastError: string | null;

  @EpochColumn({ name: 'last_attempt_ms', nullable: true })
  lastAttemptMs: number | null;

  /** When the next attempt is due; null once delivered or failed. */
  @EpochColumn({ name: 'next_attempt_ms', nullable: true })
  nextAttemptMs: number | null;

  /** A sender's claim: others leave the row alone until it expires. */
  @EpochColumn({ name: 'lease_until_ms', nullable: true })
  leaseUntilMs: number | null;

  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true })
  leaseOwner: string | null;

  @EpochColumn({ name: 'created_ms' })
  createdMs: number;
}
