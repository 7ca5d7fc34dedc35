import { Module } from '@nestjs/common';
import { ChangeMessages } from './change-messages';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookRetention } from './webhook-retention.service';
import { WebhookSender } from './webhook-sender.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Webhooks (docs/api.md §15): endpoints, change messages, the outbox and its sender. */
@Module({
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookOutbox, WebhookSender, ChangeMessages, WebhookRetention],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
