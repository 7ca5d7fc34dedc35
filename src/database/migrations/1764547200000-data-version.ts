import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/** The data version row behind the list count cache. */
export class DataVersion1764547200000 implements MigrationInterface {
  name = 'DataVersion1764547200000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'data_version',
        columns: [
          { name: 'id', type: 'int', isPrimary: true },
          { name: 'version', type: 'bigint', default: 0 },
        ],
      }),
    );
    await q.query('INSERT INTO data_version (id, version) VALUES (1, 0)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('data_version');
  }
}
