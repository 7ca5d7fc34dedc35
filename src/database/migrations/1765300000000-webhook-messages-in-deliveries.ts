import {
  MigrationInterface,
  QueryRunner,
  Table,
  TableColumn,
  TableForeignKey,
  TableIndex,
} from 'typeorm';

/**
 * The outbox in one table: each delivery row carries its message (`webhook-id`,
 * type and body), so a write stores its messages with one INSERT instead of a
 * message INSERT and a delivery INSERT (issue 15: the outbox's cost to
 * writes). `webhook_messages` goes; its rows move into their deliveries.
 */
export class WebhookMessagesInDeliveries1765300000000 implements MigrationInterface {
  name = 'WebhookMessagesInDeliveries1765300000000';

  async up(q: QueryRunner): Promise<void> {
    const body = bodyType(q);
    await q.addColumns('webhook_deliveries', [
      new TableColumn({ name: 'webhook_id', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'type', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'body', type: body, isNullable: true }),
    ]);
    const from = (column: string) =>
      `(SELECT m.${column} FROM webhook_messages m WHERE m.id = webhook_deliveries.message_id)`;
    await q.query(
      `UPDATE webhook_deliveries SET webhook_id = ${from('message_id')}, type = ${from('type')}, ` +
        `body = ${from('body')}`,
    );
    const deliveries = (await q.getTable('webhook_deliveries')) as Table;
    const toMessages = deliveries.foreignKeys.find((fk) => fk.columnNames.includes('message_id'));
    if (toMessages) await q.dropForeignKey(deliveries, toMessages);
    await q.dropIndex('webhook_deliveries', 'idx_webhook_deliveries_message');
    await q.dropColumn('webhook_deliveries', 'message_id');
    const moved = (await q.getTable('webhook_deliveries')) as Table;
    const required = (name: string, type: string, length?: string) => ({
      oldColumn: moved.findColumnByName(name) as TableColumn,
      newColumn: new TableColumn({ name, type, ...(length ? { length } : {}) }),
    });
    await q.changeColumns('webhook_deliveries', [
      required('webhook_id', 'varchar', '64'),
      required('type', 'varchar', '64'),
      required('body', body),
    ]);
    // A write's sender finds the deliveries it just wrote by their messages' IDs.
    await q.createIndex(
      'webhook_deliveries',
      new TableIndex({ name: 'idx_webhook_deliveries_message', columnNames: ['webhook_id'] }),
    );
    await q.dropTable('webhook_messages');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'webhook_messages',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'message_id', type: 'varchar', length: '64' },
          { name: 'type', type: 'varchar', length: '64' },
          { name: 'body', type: bodyType(q) },
          { name: 'created_ms', type: 'bigint' },
        ],
        indices: [
          new TableIndex({
            name: 'uq_webhook_messages_message_id',
            columnNames: ['message_id'],
            isUnique: true,
          }),
          new TableIndex({ name: 'idx_webhook_messages_created', columnNames: ['created_ms'] }),
        ],
      }),
    );
    await q.query(
      'INSERT INTO webhook_messages (message_id, type, body, created_ms) ' +
        'SELECT webhook_id, MIN(type), MIN(body), MIN(created_ms) FROM webhook_deliveries ' +
        'GROUP BY webhook_id',
    );
    await q.addColumn(
      'webhook_deliveries',
      new TableColumn({ name: 'message_id', type: 'int', isNullable: true }),
    );
    await q.query(
      'UPDATE webhook_deliveries SET message_id = ' +
        '(SELECT m.id FROM webhook_messages m WHERE m.message_id = webhook_deliveries.webhook_id)',
    );
    await q.dropIndex('webhook_deliveries', 'idx_webhook_deliveries_message');
    await q.dropColumns('webhook_deliveries', ['webhook_id', 'type', 'body']);
    await q.changeColumn(
      'webhook_deliveries',
      'message_id',
      new TableColumn({ name: 'message_id', type: 'int', default: 0 }),
    );
    await q.createIndex(
      'webhook_deliveries',
      new TableIndex({ name: 'idx_webhook_deliveries_message', columnNames: ['message_id'] }),
    );
    await q.createForeignKey(
      'webhook_deliveries',
      new TableForeignKey({
        columnNames: ['message_id'],
        referencedTableName: 'webhook_messages',
        referencedColumnNames: ['id'],
        onDelete: 'CASCADE',
      }),
    );
  }
}

/** A record with both languages' long texts: more than TEXT's 64 KiB on MySQL. */
function bodyType(q: QueryRunner): string {
  return q.connection.options.type === 'mysql' ? 'mediumtext' : 'text';
}
