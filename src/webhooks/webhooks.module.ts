import { Module } from '@nestjs/common';
import { WritesModule } from '../writes/writes.module';
import { ChangeMessages } from './change-messages';
import { WebhookClaims } from './webhook-claims';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookRetention } from './webhook-retention.service';
import { WebhookSender } from './webhook-sender.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Webhooks (docs/api.md §15): endpoints, change messages, the outbox and its sender. */
@Module({
  imports: [WritesModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhookOutbox,
    WebhookSender,
    WebhookClaims,
    ChangeMessages,
    WebhookRetention,
  ],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
