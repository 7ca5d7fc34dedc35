import {
  MigrationInterface,
  QueryRunner,
  Table,
  TableColumnOptions,
  TableForeignKey,
  TableIndex,
} from 'typeorm';

/**
 * Webhooks (docs/api.md §15): the endpoints, the outbox of messages written in
 * the transaction of the change they announce, and one delivery per message
 * and endpoint, claimed by a sender with a lease.
 */
export class Webhooks1764723600000 implements MigrationInterface {
  name = 'Webhooks1764723600000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type === 'mysql';
    const id: TableColumnOptions = {
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    };
    const int = (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'int',
      isNullable: nullable,
      ...(nullable ? {} : { default: 0 }),
    });
    const epoch = (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'bigint',
      isNullable: nullable,
    });
    const str = (name: string, length: number, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
    });
    const bool = (name: string, value: boolean): TableColumnOptions => ({
      name,
      type: 'boolean',
      default: value ? 1 : 0,
    });
    const cascade = (column: string, table: string) =>
      new TableForeignKey({
        columnNames: [column],
        referencedTableName: table,
        referencedColumnNames: ['id'],
        onDelete: 'CASCADE',
      });

    await q.createTable(
      new Table({
        name: 'webhook_endpoints',
        columns: [
          id,
          str('url', 2048),
          { name: 'events', type: 'text' },
          str('description', 255),
          bool('enabled', true),
          str('secret', 128),
          int('consecutive_failures'),
          epoch('created_at'),
          epoch('modified_at'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'webhook_messages',
        columns: [
          id,
          str('message_id', 64),
          str('type', 64),
          // A record with both languages' long texts: more than TEXT's 64 KiB on MySQL.
          { name: 'body', type: mysql ? 'mediumtext' : 'text' },
          epoch('created_ms'),
        ],
        indices: [
          new TableIndex({
            name: 'uq_webhook_messages_message_id',
            columnNames: ['message_id'],
            isUnique: true,
          }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          id,
          int('endpoint_id'),
          int('message_id'),
          str('status', 16),
          int('attempts'),
          bool('forced', false),
          int('last_status_code', true),
          { name: 'last_response', type: 'text', isNullable: true },
          str('last_error', 255, true),
          epoch('last_attempt_ms', true),
          epoch('next_attempt_ms', true),
          epoch('lease_until_ms', true),
          str('lease_owner', 64, true),
          epoch('created_ms'),
        ],
        indices: [
          // The deliveries log, newest first.
          new TableIndex({
            name: 'idx_webhook_deliveries_log',
            columnNames: ['endpoint_id', 'id'],
          }),
          // What a sender claims: an endpoint's due pending deliveries.
          new TableIndex({
            name: 'idx_webhook_deliveries_due',
            columnNames: ['endpoint_id', 'status', 'next_attempt_ms'],
          }),
          new TableIndex({ name: 'idx_webhook_deliveries_message', columnNames: ['message_id'] }),
        ],
        foreignKeys: [
          cascade('endpoint_id', 'webhook_endpoints'),
          cascade('message_id', 'webhook_messages'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('webhook_deliveries');
    await q.dropTable('webhook_messages');
    await q.dropTable('webhook_endpoints');
  }
}
