import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { WebhookMessage } from './entities/webhook-message.entity';
import { subscribes } from './message-types';
import { WebhookSender } from './webhook-sender.service';

/** One message to announce: its type and the `data` member of its body. */
export interface OutgoingMessage {
  type: string;
  data: Record<string, unknown>;
}

/** A `webhook-id`: unique per message, the same on every attempt. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/**
 * The transactional outbox (docs/api.md §15): messages are stored in the
 * transaction of the change they announce, with one pending delivery per
 * endpoint that wants them, so a committed change is always announced (even if
 * the process dies right after the commit) and a rolled-back one never is.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly sender: WebhookSender) {}

  /**
   * Stores the messages for every enabled endpoint subscribed to their type
   * (or only for `to`, enabled or not: a ping). Nothing is written when no
   * endpoint wants a message. The sender is woken when the transaction commits.
   */
  async enqueue(
    manager: EntityManager,
    messages: OutgoingMessage[],
    to?: WebhookEndpoint,
  ): Promise<Array<{ delivery: WebhookDelivery; message: WebhookMessage }>> {
    const endpoints: Array<Pick<WebhookEndpoint, 'id' | 'events'>> = to
      ? [to]
      : await manager.find(WebhookEndpoint, {
          select: { id: true, events: true },
          where: { enabled: true },
        });
    const created: Array<{ delivery: WebhookDelivery; message: WebhookMessage }> = [];
    const now = Date.now();
    for (const { type, data } of messages) {
      const targets = to ? endpoints : endpoints.filter((e) => subscribes(e.events, type));
      if (targets.length === 0) continue;
      const body = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
      const message = manager.create(WebhookMessage, {
        messageId: newMessageId(),
        type,
        body,
        createdMs: now,
      });
      await manager.insert(WebhookMessage, message);
      const deliveries = targets.map((endpoint) =>
        manager.create(WebhookDelivery, {
          endpointId: endpoint.id,
          messageId: message.id,
          status: 'pending',
          attempts: 0,
          forced: to !== undefined,
          lastStatusCode: null,
          lastResponse: null,
          lastError: null,
          lastAttemptMs: null,
          nextAttemptMs: now,
          leaseUntilMs: null,
          leaseOwner: null,
          createdMs: now,
        }),
      );
      // One row at a time: every driver then reports each generated ID.
      for (const delivery of deliveries) await manager.insert(WebhookDelivery, delivery);
      created.push(...deliveries.map((delivery) => ({ delivery, message })));
    }
    if (created.length > 0) this.sender.wakeAfterCommit(manager);
    return created;
  }
}
