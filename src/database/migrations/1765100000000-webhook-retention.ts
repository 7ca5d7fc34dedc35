import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Webhook retention (WEBHOOK_RETENTION_DAYS): the cleanup finds finished
 * deliveries by status and last attempt, and messages by age, through an
 * index each instead of scanning the log.
 */
export class WebhookRetention1765100000000 implements MigrationInterface {
  name = 'WebhookRetention1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex(
      'webhook_deliveries',
      new TableIndex({
        name: 'idx_webhook_deliveries_finished',
        columnNames: ['status', 'last_attempt_ms'],
      }),
    );
    await q.createIndex(
      'webhook_messages',
      new TableIndex({ name: 'idx_webhook_messages_created', columnNames: ['created_ms'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('webhook_messages', 'idx_webhook_messages_created');
    await q.dropIndex('webhook_deliveries', 'idx_webhook_deliveries_finished');
  }
}
