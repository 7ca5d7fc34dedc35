import { Module } from '@nestjs/common';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookSender } from './webhook-sender.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Webhooks (docs/api.md §15): endpoints, the outbox and its sender. */
@Module({
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookOutbox, WebhookSender],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
