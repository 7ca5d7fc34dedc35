import { DataSource, EntityManager } from 'typeorm';
import { isRetryableConflict, isUniqueViolation } from '../common/errors/database-errors';

const MAX_ATTEMPTS = 30;
const sqliteQueues = new WeakMap<DataSource, Promise<unknown>>();

/**
 * Every multi-row write runs through here, as one transaction:
 * - retried when a concurrent write took the same unique key first (a slug,
 *   a term name) or MySQL reports a deadlock/lock timeout: never a 500;
 * - on the embedded SQLite database, which TypeORM drives over a single
 *   connection, queued one after another instead of interleaving on it.
 */
export async function writeTransaction<R>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<R>,
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runTransaction(dataSource, work);
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
): Promise<R> {
  if (dataSource.options.type !== 'better-sqlite3') return dataSource.transaction(work);
  const run = (sqliteQueues.get(dataSource) ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => dataSource.transaction(work));
  sqliteQueues.set(dataSource, run);
  return run;
}
