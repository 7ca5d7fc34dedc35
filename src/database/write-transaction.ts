import { DataSource, EntityManager } from 'typeorm';
import { isRetryableConflict, isUniqueViolation } from '../common/errors/database-errors';

const MAX_ATTEMPTS = 30;
// Not write state: the SQLite connection's queue of transactions, one per data source.
const sqliteQueues = new WeakMap<DataSource, Promise<unknown>>();

/**
 * Every multi-row write runs through here, as one transaction (writes that
 * record changes or belong to an HTTP request through Writes.run, which adds
 * the commit pipeline to each attempt):
 * - retried when a concurrent write took the same unique key first (a slug,
 *   a term name) or MySQL reports a deadlock/lock timeout: never a 500;
 * - on the embedded SQLite database, which TypeORM drives over a single
 *   connection, queued one after another instead of interleaving on it.
 * `readCommitted` runs it at READ COMMITTED on MySQL/MariaDB (SQLite has one writer anyway).
 */
export async function writeTransaction<R>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<R>,
  options: { readCommitted?: boolean } = {},
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runTransaction(dataSource, work, options.readCommitted === true);
    } catch (error) {
      const retryable = isUniqueViolation(error) || isRetryableConflict(error);
      if (!retryable || attempt >= MAX_ATTEMPTS) throw error;
      // Spread the retries of writers that collided.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

function runTransaction<R>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<R>,
  readCommitted: boolean,
): Promise<R> {
  const run = (manager: EntityManager) => work(manager);
  const transaction = () => dataSource.transaction(run);
  if (dataSource.options.type !== 'better-sqlite3') {
    // READ COMMITTED on MySQL/MariaDB: locking reads take no gap locks (a queue's claims).
    return readCommitted ? dataSource.transaction('READ COMMITTED', run) : transaction();
  }
  return enqueue(dataSource, transaction);
}

/**
 * A read that must see committed data only. On SQLite, TypeORM shares one
 * connection, so a read that runs while a write transaction is open would
 * see its uncommitted rows: this one waits its turn in the write queue.
 * Elsewhere it runs at once (every pooled connection reads committed data).
 */
export function committedRead<R>(dataSource: DataSource, read: () => Promise<R>): Promise<R> {
  return dataSource.options.type === 'better-sqlite3' ? enqueue(dataSource, read) : read();
}

function enqueue<R>(dataSource: DataSource, work: () => Promise<R>): Promise<R> {
  const run = (sqliteQueues.get(dataSource) ?? Promise.resolve()).catch(() => undefined).then(work);
  sqliteQueues.set(dataSource, run);
  return run;
}
