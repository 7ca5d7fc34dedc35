import { MysqlQueryRunner } from 'typeorm/driver/mysql/MysqlQueryRunner';

/**
 * Records the SQL of every statement TypeORM sends to MySQL/MariaDB into
 * `sent` (still sending it), until the returned spy is restored.
 */
export function recordMysqlStatements(sent: string[]): jest.SpyInstance {
  const query = MysqlQueryRunner.prototype.query;
  return jest.spyOn(MysqlQueryRunner.prototype, 'query').mockImplementation(function (
    this: MysqlQueryRunner,
    ...args: Parameters<typeof query>
  ) {
    sent.push(args[0]);
    return query.apply(this, args);
  });
}
