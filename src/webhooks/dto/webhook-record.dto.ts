import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_STATUSES } from '../entities/webhook-delivery.entity';
import { SUBSCRIBABLE_TYPES } from '../message-types';

/** A webhook endpoint as administrators read it; the secret is never shown again. */
export class WebhookRecordDto {
  id: number;
  url: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: SUBSCRIBABLE_TYPES } })
  events: string[];
  description: string;
  /** Whether messages are sent; turned off after WEBHOOK_DISABLE_AFTER failed messages in a row. */
  enabled: boolean;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  created_utc: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  modified_utc: string;
  /** Messages that failed in a row; a delivered one resets it. */
  consecutive_failures: number;
}

/** A webhook endpoint with its signing secret: the answer of create and rotate-secret only. */
export class WebhookWithSecretDto extends WebhookRecordDto {
  /**
   * `whsec_` + base64 of 32 random bytes: keep it, it is not shown again. Null in an answer
   * replayed for an `Idempotency-Key` (secrets are not stored with keys): rotate it to get one.
   */
  @ApiProperty({ type: 'string', nullable: true, pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$' })
  secret: string | null;
}

/** One message to one endpoint, in the deliveries log. */
export class WebhookDeliveryDto {
  id: number;
  /** The `webhook-id` header: the same on every attempt. */
  message_id: string;
  /** The message type (`event.created`, …, `ping`). */
  type: string;
  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: string;
  attempts: number;
  /** HTTP status of the last answer; null when none came. */
  @ApiProperty({ type: 'integer', nullable: true })
  last_status_code: number | null;
  /** `YYYY-MM-DD HH:MM:SS`, UTC; null before the first attempt. */
  @ApiProperty({ type: 'string', nullable: true })
  last_attempt_utc: string | null;
  /** When the next attempt is due (UTC); null once delivered or failed. */
  @ApiProperty({ type: 'string', nullable: true })
  next_attempt_utc: string | null;
  created_utc: string;
  /** The first KiB of the receiver's last answer. */
  @ApiProperty({ type: 'string', nullable: true, maxLength: 1024 })
  last_response: string | null;
  /** Why the last attempt got no answer (time-out, refused address, connection error). */
  @ApiProperty({ type: 'string', nullable: true })
  last_error: string | null;
}
