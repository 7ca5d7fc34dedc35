import type { CacheStats } from '../../metrics/signals';

/** Bounds staleness should a data version bump ever fail. */
export const MAX_AGE_MS = 60_000;

interface Entry<T> {
  value: T;
  version: number;
  at: number;
}

/**
 * Values that hold while the shared data version they were made at is still
 * current (and for at most MAX_AGE_MS), kept in a bounded LRU: a write on any
 * instance bumps the version and so retires every value made before it.
 */
export class VersionStampedLru<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = () => Date.now(),
    /** Where hits and misses are counted (metrics). */
    private readonly stats?: CacheStats,
  ) {}

  /** The value stored for `key` at `version`, if it is still fresh. */
  get(key: string, version: number): T | undefined {
    const found = this.find(key, version);
    if (found?.stale) this.entries.delete(key);
    const fresh = found && !found.stale;
    if (fresh) this.stats?.hit();
    else this.stats?.miss();
    return fresh ? found.value : undefined;
  }

  /**
   * The value stored for `key` at `version`, also once older than MAX_AGE_MS
   * (`stale`): still exact unless a version bump failed, so good enough to
   * answer with while it is made again.
   */
  lookup(key: string, version: number): { value: T; stale: boolean } | undefined {
    const found = this.find(key, version);
    if (found) this.stats?.hit();
    else this.stats?.miss();
    return found;
  }

  private find(key: string, version: number): { value: T; stale: boolean } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.version !== version) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert: Map keeps insertion order, so the first key is the least recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { value: entry.value, stale: this.now() - entry.at >= MAX_AGE_MS };
  }

  set(key: string, value: T, version: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, version, at: this.now() });
    if (this.entries.size > this.maxEntries)
      this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
