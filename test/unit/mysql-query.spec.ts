import { QueryFailedError } from 'typeorm';
import { MysqlQueryRunner } from 'typeorm/driver/mysql/MysqlQueryRunner';
import { QueryResult } from 'typeorm/query-runner/QueryResult';
import { BroadcasterResult } from 'typeorm/subscriber/BroadcasterResult';
import { loadMysqlDriver } from '../../src/database/mysql-driver';
import { QUERY_TIMEOUT } from '../../src/database/query-timeout';
import { leanMysqlQuery } from '../../src/database/mysql-query';
import { StatementDeadlines } from '../../src/database/statement-deadlines';

type Done = (error: Error | null, raw?: unknown) => void;
interface AfterQuery {
  query: string;
  success: boolean;
  executionTime?: number;
  raw: unknown;
  error: unknown;
}

/** A runner with the fields TypeORM's MysqlQueryRunner has, over a scripted connection. */
class FakeRunner {
  static originals = 0;
  isReleased = false;
  sent: unknown[][] = [];
  after: AfterQuery[] = [];
  slow: number[] = [];
  reply: { error: Error | null; raw?: unknown } = { error: null, raw: [] };
  /** A database that does not answer (a silent partition) until answerLate is called. */
  silent = false;
  late: Done[] = [];
  databaseConnection?: { query: (...args: unknown[]) => void } = {
    query: (...args: unknown[]) => {
      this.sent.push(args.slice(0, -1));
      const done = args[args.length - 1] as Done;
      if (this.silent) this.late.push(done);
      else setImmediate(() => done(this.reply.error, this.reply.raw));
    },
  };
  /** TypeORM's connect: the pool's connection, once. */
  connects = 0;
  private pooled = this.databaseConnection;
  connect(): Promise<unknown> {
    this.connects++;
    this.databaseConnection = this.pooled;
    return Promise.resolve(this.databaseConnection);
  }
  answerLate(): void {
    for (const done of this.late.splice(0)) done(this.reply.error, this.reply.raw);
  }
  subscribers: Array<{ beforeQuery?: () => void }> = [];
  dataSource = { subscribers: this.subscribers };
  driver = {
    options: { enableQueryTimeout: true, maxQueryExecutionTime: 30_000 },
    dataSource: {
      logger: {
        logQuery: () => undefined,
        logQueryError: () => undefined,
        logQuerySlow: (time: number) => this.slow.push(time),
      },
    },
  };
  afterWork?: () => Promise<void>;
  broadcaster = {
    broadcastAfterQueryEvent: (
      result: BroadcasterResult,
      query: string,
      _parameters: unknown,
      success: boolean,
      executionTime: number | undefined,
      raw: unknown,
      error: unknown,
    ) => {
      this.after.push({ query, success, executionTime, raw, error });
      if (this.afterWork) result.promises.push(this.afterWork());
    },
  };

  query(query: string, parameters?: unknown[], structured?: boolean): Promise<unknown> {
    FakeRunner.originals++;
    return Promise.resolve({ original: [query, parameters, structured] });
  }
}

describe('leanMysqlQuery', () => {
  beforeAll(() => {
    leanMysqlQuery(FakeRunner);
    leanMysqlQuery(FakeRunner); // idempotent: not wrapped twice
  });
  beforeEach(() => (FakeRunner.originals = 0));

  it('sends the statement and answers the raw result, after the subscribers saw it', async () => {
    const runner = new FakeRunner();
    const rows = [{ id: 1 }, { id: 2 }];
    runner.reply = { error: null, raw: rows };
    await expect(runner.query('SELECT ?', [1])).resolves.toBe(rows);
    // Its time-out is the lean path's own (StatementDeadlines), not mysql2's `timeout` option.
    expect(runner.sent).toEqual([['SELECT ?', [1]]]);
    expect(runner.after).toEqual([
      {
        query: 'SELECT ?',
        success: true,
        executionTime: expect.any(Number),
        raw: rows,
        error: undefined,
      },
    ]);
    expect(FakeRunner.originals).toBe(0);
  });

  it('sends a plain string without parameters when there is no time-out', async () => {
    const runner = new FakeRunner();
    runner.driver.options = { enableQueryTimeout: false, maxQueryExecutionTime: 0 };
    await runner.query('COMMIT');
    expect(runner.sent).toEqual([['COMMIT']]);
  });

  it('answers TypeORM’s QueryResult when asked for a structured result', async () => {
    const runner = new FakeRunner();
    runner.reply = { error: null, raw: { affectedRows: 3, insertId: 0 } };
    const result = (await runner.query('UPDATE t SET a = 1', [], true)) as QueryResult;
    expect(result).toBeInstanceOf(QueryResult);
    expect(result).toEqual(
      Object.assign(new QueryResult(), {
        raw: { affectedRows: 3, insertId: 0 },
        records: [],
        affected: 3,
      }),
    );
    runner.reply = { error: null, raw: [{ id: 4 }] };
    const rows = (await runner.query('SELECT 4', [], true)) as QueryResult;
    expect([rows.records, rows.affected]).toEqual([[{ id: 4 }], undefined]);
  });

  it('fails a statement that outlives its time-out with mysql2’s time-out error, once', async () => {
    const runner = new FakeRunner();
    runner.driver.options = { enableQueryTimeout: true, maxQueryExecutionTime: 50 };
    runner.silent = true;
    const started = Date.now();
    const failure = (await runner
      .query('SELECT SLEEP(60)', [])
      .catch((e: unknown) => e)) as QueryFailedError;
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect((failure.driverError as { code?: string }).code).toBe(QUERY_TIMEOUT);
    expect(runner.after).toEqual([
      {
        query: 'SELECT SLEEP(60)',
        success: false,
        executionTime: undefined,
        raw: undefined,
        error: failure.driverError,
      },
    ]);
    // mysql2's late answer changes nothing: the subscribers heard of the statement once.
    runner.answerLate();
    await new Promise((resolve) => setImmediate(resolve));
    expect(runner.after).toHaveLength(1);
  });

  it('answers a statement that settles in time and ends its watch', async () => {
    // The watch's release is what keeps a settled statement out of the deadlines' checks.
    const watch = StatementDeadlines.prototype.watch;
    let watched = 0;
    let released = 0;
    const spy = jest.spyOn(StatementDeadlines.prototype, 'watch').mockImplementation(function (
      this: StatementDeadlines,
      timeoutMs,
      expire,
    ) {
      watched++;
      const release = watch.call(this, timeoutMs, expire);
      return () => {
        released++;
        release();
      };
    });
    try {
      const runner = new FakeRunner();
      runner.driver.options = { enableQueryTimeout: true, maxQueryExecutionTime: 50 };
      runner.silent = true;
      const answer = runner.query('SELECT 1', []);
      runner.answerLate();
      await expect(answer).resolves.toEqual([]);
      expect([watched, released]).toEqual([1, 1]);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(runner.after.map((event) => event.success)).toEqual([true]);
    } finally {
      spy.mockRestore();
    }
  });

  it('rejects with a QueryFailedError around mysql2’s own error, reported to the subscribers as failed', async () => {
    const runner = new FakeRunner();
    const error = Object.assign(new Error('Duplicate entry'), {
      code: 'ER_DUP_ENTRY',
      errno: 1062,
    });
    runner.reply = { error };
    const failure = (await runner
      .query('INSERT x', [1])
      .catch((e: unknown) => e)) as QueryFailedError;
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect(failure.driverError).toBe(error);
    expect([
      failure.query,
      failure.parameters,
      (failure as unknown as { errno: number }).errno,
    ]).toEqual(['INSERT x', [1], 1062]);
    expect(runner.after).toEqual([
      { query: 'INSERT x', success: false, executionTime: undefined, raw: undefined, error },
    ]);
  });

  it('waits for the subscribers’ promises, and fails with theirs', async () => {
    const runner = new FakeRunner();
    let release!: () => void;
    const waiting = new Promise<void>((resolve) => (release = resolve));
    runner.afterWork = () => waiting;
    let settled = false;
    const answer = runner.query('SELECT 1').then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    await answer;
    expect(settled).toBe(true);
    runner.afterWork = () => Promise.reject(new Error('subscriber failed'));
    await expect(runner.query('SELECT 1')).rejects.toThrow('subscriber failed');
  });

  it('connects a runner without a connection first, then sends on it', async () => {
    const unconnected = new FakeRunner();
    const connection = unconnected.databaseConnection;
    unconnected.databaseConnection = undefined;
    unconnected.reply = { error: null, raw: [{ id: 1 }] };
    await expect(unconnected.query('SELECT 1', [2])).resolves.toEqual([{ id: 1 }]);
    expect(unconnected.connects).toBe(1);
    expect(unconnected.databaseConnection).toBe(connection);
    expect(unconnected.sent).toEqual([['SELECT 1', [2]]]);
    expect(FakeRunner.originals).toBe(0);
  });

  it('leaves a runner whose connect gave it no connection to TypeORM (no second round)', async () => {
    const runner = new FakeRunner();
    runner.databaseConnection = undefined;
    runner.connect = () => Promise.resolve(undefined);
    await expect(runner.query('SELECT 1', [2])).resolves.toEqual({
      original: ['SELECT 1', [2], false],
    });
    expect(FakeRunner.originals).toBe(1);
  });

  it('leaves a released runner or one with a beforeQuery subscriber to TypeORM', async () => {
    const released = new FakeRunner();
    released.isReleased = true;
    const listened = new FakeRunner();
    listened.subscribers.push({ beforeQuery: () => undefined });
    for (const runner of [released, listened])
      await expect(runner.query('SELECT 1', [2], true)).resolves.toEqual({
        original: ['SELECT 1', [2], true],
      });
    expect(FakeRunner.originals).toBe(2);
    expect([released.sent, listened.sent]).toEqual([[], []]);
  });

  it('is installed on TypeORM’s MysqlQueryRunner by loadMysqlDriver', () => {
    loadMysqlDriver();
    const query = MysqlQueryRunner.prototype.query;
    loadMysqlDriver();
    expect(MysqlQueryRunner.prototype.query).toBe(query);
    expect(query.name).not.toBe('query');
  });
});
