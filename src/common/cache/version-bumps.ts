/**
 * What the write transactions of one request did to the data version, so
 * WriteVersionInterceptor bumps it only when they did not. A tracked write
 * bumps the version inside its own transaction (the commit pipeline of
 * writes/writes.service.ts); any other write transaction leaves the bump to
 * the interceptor. The interceptor attaches it to the request
 * (RequestContext.write.bumps); services hand it to their transactions.
 */
export class VersionBumps {
  /** A transaction that bumped the version with its data has committed. */
  private bumpCommitted = false;
  /** A transaction that bumped nothing went to COMMIT (it may have committed, even if its reply was lost). */
  private unbumpedWrite = false;
  /** What the request writes beside its tracked changes is read by no cache. */
  private untrackedUncached = false;
  /** The request writes nothing itself: every write it makes reports here or bumps on its own. */
  private reportedOnly = false;

  /**
   * For a request that only runs other writes (a batch, docs/api.md §18):
   * it owes a bump only for a transaction that reported one without a bump.
   */
  writesNothingItself(): void {
    this.reportedOnly = true;
  }

  committedWithBump(): void {
    this.bumpCommitted = true;
  }

  committingWithoutBump(): void {
    this.unbumpedWrite = true;
  }

  /**
   * The request's writes without tracked changes touch nothing a cache
   * reads (an import's own records and runs, the hashes it keeps on events):
   * only its tracked transactions bump the version, each with its data.
   */
  untrackedWritesUncached(): void {
    this.untrackedUncached = true;
  }

  /**
   * Whether the request still owes a bump, having ended with `status`. A 4xx
   * is decided before its write commits; a success or a 5xx owes one unless a
   * transaction bumped with its data (a request that seems to have written
   * nothing is bumped for safety, as every write was before).
   */
  owed(status: number): boolean {
    if (this.untrackedUncached) return false;
    if (this.unbumpedWrite) return true;
    if (this.reportedOnly) return false;
    if (status >= 400 && status < 500) return false;
    return !this.bumpCommitted;
  }
}
