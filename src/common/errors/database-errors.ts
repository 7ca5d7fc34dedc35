/** Driver error codes that mean "the database cannot be reached right now". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'POOL_CLOSED',
  'SQLITE_BUSY',
]);

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** better-sqlite3's error for a statement on a closed handle: it has no code of its own. */
const SQLITE_CLOSED = 'The database connection is not open';

/** SQLite cannot read or write its file (unmounted volume, failing disk, file gone). */
function isSqliteFileError(code: unknown): boolean {
  return (
    typeof code === 'string' &&
    (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_'))
  );
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const driverError = (error as { driverError?: unknown } | null)?.driverError;
  return [error, driverError].some(
    (e) =>
      UNAVAILABLE_CODES.has(codeOf(e) as string) ||
      isSqliteFileError(codeOf(e)) ||
      // By name, not instanceof: the native driver's TypeError may come from another realm.
      ((e as Error | null)?.name === 'TypeError' && (e as Error).message === SQLITE_CLOSED),
  );
}

/** Unique-key violations on MySQL/MariaDB and SQLite. */
export function isUniqueViolation(error: unknown): boolean {
  const driverError = (error as { driverError?: unknown } | null)?.driverError ?? error;
  const code = codeOf(driverError);
  return (
    code === 'ER_DUP_ENTRY' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/**
 * Deadlocks and lock timeouts that MySQL asks the client to retry, and a link
 * to a row a concurrent write deleted after this one looked it up (the retry
 * looks it up again: a term named by name is made anew, an ID is then 400).
 */
export function isRetryableConflict(error: unknown): boolean {
  const driverError = (error as { driverError?: unknown } | null)?.driverError ?? error;
  const code = codeOf(driverError);
  return (
    code === 'ER_LOCK_DEADLOCK' ||
    code === 'ER_LOCK_WAIT_TIMEOUT' ||
    code === 'ER_NO_REFERENCED_ROW_2' ||
    code === 'SQLITE_BUSY'
  );
}
