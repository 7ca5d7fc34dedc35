import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** Idempotency keys and their stored answers (docs/api.md §13). */
export class IdempotencyKeys1765000000000 implements MigrationInterface {
  name = 'IdempotencyKeys1765000000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type === 'mysql';
    await q.createTable(
      new Table({
        name: 'idempotency_keys',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'caller', type: 'varchar', length: '32' },
          { name: 'request_hash', type: 'varchar', length: '64' },
          { name: 'fingerprint', type: 'varchar', length: '64' },
          { name: 'state', type: 'varchar', length: '10' },
          { name: 'token', type: 'varchar', length: '32' },
          { name: 'lease_until', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
          { name: 'status', type: 'int', isNullable: true },
          { name: 'answer_kind', type: 'varchar', length: '12', isNullable: true },
          { name: 'answer_id', type: 'int', isNullable: true },
          { name: 'headers', type: 'text', isNullable: true },
          { name: 'body', type: mysql ? 'mediumtext' : 'text', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'idx_idempotency_keys_expires', columnNames: ['expires_at'] }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('idempotency_keys');
  }
}
