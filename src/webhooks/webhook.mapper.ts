import { utcWire } from '../common/time/dates';
import { WebhookDeliveryDto, WebhookRecordDto } from './dto/webhook-record.dto';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';

/** The endpoint as the API shows it; `secret` only when it was just made. */
export function mapWebhook(endpoint: WebhookEndpoint, secret?: string): WebhookRecordDto {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    ...(secret !== undefined ? { secret } : {}),
    created_utc: utcWire(endpoint.createdAt),
    modified_utc: utcWire(endpoint.modifiedAt),
    consecutive_failures: endpoint.consecutiveFailures,
  };
}

const msWire = (ms: number | null) => (ms === null ? null : utcWire(Math.floor(ms / 1000)));

/** A delivery with its message's `webhook-id` and type. */
export function mapDelivery(delivery: WebhookDelivery): WebhookDeliveryDto {
  return {
    id: delivery.id,
    message_id: delivery.webhookId,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_attempt_utc: msWire(delivery.lastAttemptMs),
    next_attempt_utc: msWire(delivery.nextAttemptMs),
    created_utc: msWire(delivery.createdMs) as string,
    last_response: delivery.lastResponse,
    last_error: delivery.lastError,
  };
}
