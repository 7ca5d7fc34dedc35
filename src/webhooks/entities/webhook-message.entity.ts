import { Column, Entity, Index } from 'typeorm';
import { EpochColumn, IdColumn } from '../../database/columns';

/**
 * The outbox: one row per message, written in the transaction of the change it
 * announces; its body is signed and sent unchanged on every attempt.
 */
@Entity('webhook_messages')
@Index('idx_webhook_messages_created', ['createdMs'])
export class WebhookMessage {
  @IdColumn()
  id: number;

  /** The `webhook-id` header: the same on every attempt and every endpoint. */
  @Column({ name: 'message_id', type: 'varchar', length: 64, unique: true })
  messageId: string;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  @Column({ type: 'text' })
  body: string;

  @EpochColumn({ name: 'created_ms' })
  createdMs: number;
}
