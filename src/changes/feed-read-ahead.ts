/**
 * Pages of the changes feed read ahead: while a syncing client takes in one
 * answer, the next one (the same request with `since` = its `next_cursor`)
 * is read and built, so the client's and the service's work overlap instead
 * of taking turns. A page read ahead is answered at most once, and only at
 * the data version it was read at (as ReadValidatorCache answers a 304):
 * any write since, and it is read again. Bounded in number and age.
 */
export class FeedReadAhead<P> {
  private readonly pages = new Map<string, { version: number; since: number; page: Promise<P> }>();

  constructor(
    private readonly maxPages = 4,
    private readonly maxAgeMs = 10_000,
  ) {}

  /**
   * Starts reading the page of `key` unless it is already under way, or
   * `maxPages` younger than `maxAgeMs` are held already. A failed
   * read is dropped when taken: the request then reads the page itself.
   */
  start(key: string, version: number, read: () => Promise<P>): void {
    if (this.pages.has(key)) return;
    const now = Date.now();
    for (const [other, entry] of this.pages)
      if (now - entry.since > this.maxAgeMs) this.pages.delete(other);
    // Full: read nothing more ahead. Evicting a page would leave its read running and make
    // its client read it again: with many clients syncing, every page would be read twice.
    if (this.pages.size >= this.maxPages) return;
    const page = read();
    // Rejections are the taker's to see (and then to read again); none may go unhandled.
    page.catch(() => undefined);
    this.pages.set(key, { version, since: now, page });
  }

  /** The page read ahead for `key` at `version`, now; undefined when there is none, it failed, is older or stale. */
  async take(key: string, version: number): Promise<P | undefined> {
    const entry = this.pages.get(key);
    if (!entry) return undefined;
    this.pages.delete(key);
    if (entry.version !== version || Date.now() - entry.since > this.maxAgeMs) return undefined;
    return entry.page.catch(() => undefined);
  }
}
