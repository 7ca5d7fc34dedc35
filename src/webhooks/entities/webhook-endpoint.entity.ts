import { Column, Entity } from 'typeorm';
import { EpochColumn, IdColumn } from '../../database/columns';

/** A receiver registered by an administrator (docs/api.md §15). */
@Entity('webhook_endpoints')
export class WebhookEndpoint {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** Subscribed message types (`event.created`, …) or `["*"]`. */
  @Column({ type: 'simple-json' })
  events: string[];

  @Column({ type: 'varchar', length: 255 })
  description: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** `whsec_` + base64; shown only when created or rotated, never logged. */
  @Column({ type: 'varchar', length: 128 })
  secret: string;

  /** Messages that ended `failed` in a row; a delivered one resets it. */
  @Column({ name: 'consecutive_failures', type: 'int', default: 0 })
  consecutiveFailures: number;

  @EpochColumn({ name: 'created_at' })
  createdAt: number;

  @EpochColumn({ name: 'modified_at' })
  modifiedAt: number;
}
