import { QueryFailedError, type QueryRunner } from 'typeorm';
import { MysqlQueryRunner } from 'typeorm/driver/mysql/MysqlQueryRunner';
import { QueryResult } from 'typeorm/query-runner/QueryResult';
import { BroadcasterResult } from 'typeorm/subscriber/BroadcasterResult';
import { QUERY_TIMEOUT } from './query-timeout';
import { StatementDeadlines } from './statement-deadlines';

/** Marks the prototype whose `query` is the lean one. */
const LEAN = Symbol('lean query');

type Done = (error: Error | null, raw?: unknown) => void;

interface Connection {
  query(sql: string, values: unknown, done: Done): void;
  query(sql: string, done: Done): void;
}

/** What the lean `query` uses of TypeORM's runner (its public and internal fields). */
interface Runner {
  isReleased: boolean;
  databaseConnection?: Connection;
  connect(): Promise<unknown>;
  dataSource: { subscribers: Array<{ beforeQuery?: unknown }> };
  driver: {
    options: { enableQueryTimeout?: boolean; maxQueryExecutionTime?: number };
    dataSource: { logger: QueryRunner['connection']['logger'] };
  };
  broadcaster: {
    broadcastAfterQueryEvent(
      result: BroadcasterResult,
      query: string,
      parameters: unknown[] | undefined,
      success: boolean,
      executionTime: number | undefined,
      raw: unknown,
      error: unknown,
    ): void;
  };
}

type Query = (
  this: Runner,
  query: string,
  parameters?: unknown[],
  useStructuredResult?: boolean,
) => Promise<unknown>;

/**
 * TypeORM's `MysqlQueryRunner.query` with the same steps and results, minus
 * what each statement paid for nothing: an awaited `connect()` when the runner
 * already holds its connection (one without gets it first, as in TypeORM),
 * the `BeforeQuery` broadcast when no subscriber listens to it (ours listen
 * after), mysql2's promise wrapper (the callback is what it wraps), a copy of
 * every result's rows (`Array.from`) that only a structured result uses, and
 * mysql2's per-statement `timeout` (a timer and a copy of the statement's
 * options each): the deadlines are checked by one timer for all statements
 * (StatementDeadlines), and an expired statement fails with mysql2's own
 * error. TypeORM's share of a create's CPU profile went from 4.9 to 2.4 %
 * (docs/performance.md, Writes). The slow-query log, the `AfterQuery`
 * subscribers (metrics, time-outs) and the errors (`QueryFailedError` around
 * mysql2's own error) are TypeORM's. A released runner, or one with a
 * `beforeQuery` subscriber, takes TypeORM's own path.
 */
export function leanMysqlQuery(Runner: { prototype: object } = MysqlQueryRunner): void {
  const proto = Runner.prototype as { query: Query; [LEAN]?: true };
  if (proto[LEAN]) return;
  const original = proto.query;
  const lean: Query = function (this: Runner, query, parameters, useStructuredResult = false) {
    if (this.isReleased || this.dataSource.subscribers.some((s) => s.beforeQuery))
      return original.call(this, query, parameters, useStructuredResult);
    const connection = this.databaseConnection;
    // A runner's first statement (every read outside a transaction): its connection first, as TypeORM's.
    if (!connection)
      return this.connect().then(() =>
        (this.databaseConnection ? lean : original).call(
          this,
          query,
          parameters,
          useStructuredResult,
        ),
      );
    const logger = this.driver.dataSource.logger;
    logger.logQuery(query, parameters, this as unknown as QueryRunner);
    const { enableQueryTimeout, maxQueryExecutionTime } = this.driver.options;
    const started = Date.now();
    return new Promise((resolve, reject) => {
      let settled = false;
      let release: (() => void) | undefined;
      const done: Done = (error, raw) => {
        // After a time-out, mysql2's own late answer (or its error when the connection is thrown away).
        if (settled) return;
        settled = true;
        release?.();
        try {
          const elapsed = Date.now() - started;
          if (maxQueryExecutionTime && elapsed > maxQueryExecutionTime)
            logger.logQuerySlow(elapsed, query, parameters, this as unknown as QueryRunner);
          const broadcast = new BroadcasterResult();
          if (error) {
            logger.logQueryError(error, query, parameters, this as unknown as QueryRunner);
            this.broadcaster.broadcastAfterQueryEvent(
              broadcast,
              query,
              parameters,
              false,
              undefined,
              undefined,
              error,
            );
            settle(broadcast, () => reject(new QueryFailedError(query, parameters, error)), reject);
          } else {
            this.broadcaster.broadcastAfterQueryEvent(
              broadcast,
              query,
              parameters,
              true,
              elapsed,
              raw,
              undefined,
            );
            settle(broadcast, () => resolve(useStructuredResult ? structured(raw) : raw), reject);
          }
        } catch (thrown) {
          reject(thrown as Error);
        }
      };
      if (enableQueryTimeout && maxQueryExecutionTime)
        release = deadlines.watch(maxQueryExecutionTime, () => done(queryTimeoutError()));
      if (parameters !== undefined) connection.query(query, parameters, done);
      else connection.query(query, done);
    });
  };
  proto.query = lean;
  proto[LEAN] = true;
}

/**
 * The deadlines of the lean path's statements (`maxQueryExecutionTime`), one
 * check for all: mysql2's per-statement `timeout` is what the lean path
 * replaces, with the same error.
 */
const deadlines = new StatementDeadlines();

/** mysql2's error for a statement that outlived its time-out (QueryTimeoutSubscriber acts on it). */
function queryTimeoutError(): Error {
  return Object.assign(new Error('Query inactivity timeout'), {
    code: QUERY_TIMEOUT,
    errorno: QUERY_TIMEOUT,
    syscall: 'query',
    fatal: true,
  });
}

/** TypeORM's `finally { await broadcasterResult.wait() }`: the subscribers' promises first. */
function settle(
  broadcast: BroadcasterResult,
  then: () => void,
  reject: (error: Error) => void,
): void {
  if (broadcast.promises.length === 0) then();
  else Promise.all(broadcast.promises).then(then, reject);
}

/** The `QueryResult` TypeORM builds for `useStructuredResult`. */
function structured(raw: unknown): QueryResult {
  const result = new QueryResult();
  result.raw = raw;
  try {
    result.records = Array.from(raw as ArrayLike<unknown>);
  } catch {
    // TypeORM ignores results that are not array-like, too.
  }
  if (
    raw !== null &&
    typeof raw === 'object' &&
    Object.prototype.hasOwnProperty.call(raw, 'affectedRows')
  )
    result.affected = (raw as { affectedRows: number }).affectedRows;
  return result;
}
