import { Logger as NestLogger } from '@nestjs/common';
import {
  type AfterQueryEvent,
  type EntitySubscriberInterface,
  EventSubscriber,
  type Logger as TypeOrmLogger,
  type QueryRunner,
} from 'typeorm';

/** mysql2's error for a query that outlived its `timeout` (and the lean query path's, mysql-query.ts). */
export const QUERY_TIMEOUT = 'PROTOCOL_SEQUENCE_TIMEOUT';

interface PooledConnection {
  destroy(): void;
  stream?: { destroy(): void };
}

/**
 * mysql2 answers a timed-out query with an error but keeps the connection, its
 * command still waiting for a reply that may never come (a silent network
 * partition): every later query on that connection would queue behind it for
 * ever. Such a connection is thrown away (out of the pool, socket closed), so
 * the pool opens fresh ones and the service recovers by itself.
 */
@EventSubscriber()
export class QueryTimeoutSubscriber implements EntitySubscriberInterface {
  afterQuery(event: AfterQueryEvent): void {
    if (event.success) return;
    const code = (event.error as { code?: unknown } | undefined)?.code;
    if (code === QUERY_TIMEOUT) discardConnection(event.queryRunner);
  }
}

function discardConnection(queryRunner: QueryRunner): void {
  const connection = (queryRunner as QueryRunner & { databaseConnection?: PooledConnection })
    .databaseConnection;
  connection?.destroy();
  connection?.stream?.destroy();
}

/**
 * TypeORM's logger, routed to the application's structured logs. Queries and
 * their parameters are never logged (parameters can carry passwords); a slow
 * query is logged with its duration and statement only.
 */
export class DatabaseLogger implements TypeOrmLogger {
  private readonly logger = new NestLogger('Database');

  logQuery(): void {}

  logQueryError(): void {}

  logQuerySlow(time: number, query: string): void {
    this.logger.warn({ durationMs: time, statement: query.slice(0, 200) }, 'slow query');
  }

  logSchemaBuild(): void {}

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.log(String(message));
  }
}
