import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the write transactions of one request did to the data version, so
 * WriteVersionInterceptor bumps it only when they did not. A tracked write
 * bumps the version inside its own transaction (ChangeTracker); any other
 * write transaction leaves the bump to the interceptor.
 */
export class VersionBumps {
  /** A transaction that bumped the version with its data has committed. */
  private bumpCommitted = false;
  /** A transaction that bumped nothing went to COMMIT (it may have committed, even if its reply was lost). */
  private unbumpedWrite = false;

  committedWithBump(): void {
    this.bumpCommitted = true;
  }

  committingWithoutBump(): void {
    this.unbumpedWrite = true;
  }

  /**
   * Whether the request still owes a bump, having ended with `status`. A 4xx
   * is decided before its write commits; a success or a 5xx owes one unless a
   * transaction bumped with its data (a request that seems to have written
   * nothing is bumped for safety, as every write was before).
   */
  owed(status: number): boolean {
    if (this.unbumpedWrite) return true;
    if (status >= 400 && status < 500) return false;
    return !this.bumpCommitted;
  }
}

const scope = new AsyncLocalStorage<VersionBumps>();

/** Runs a write request's handler so its transactions report to `bumps`. */
export function withVersionBumps<T>(bumps: VersionBumps, work: () => T): T {
  return scope.run(bumps, work);
}

/** The running request's record, if a write request is running. */
export function currentVersionBumps(): VersionBumps | undefined {
  return scope.getStore();
}
