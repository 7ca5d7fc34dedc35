import { Injectable } from '@nestjs/common';
import { DataVersionService } from './data-version.service';

const MAX_ENTRIES = 1000;
/** Bounds staleness should a version bump ever fail. */
const MAX_AGE_MS = 60_000;

interface Entry {
  version: number;
  count: number;
  at: number;
}

/**
 * Exact list totals without counting every time: a total is reused while the
 * data version it was counted at is still current, so a write on any
 * instance invalidates it. Bounded LRU in memory.
 */
@Injectable()
export class CountCacheService {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly versions: DataVersionService) {}

  /** `scope`: the request's context, so the request reads the data version once. */
  async count(key: string, compute: () => Promise<number>, scope?: object): Promise<number> {
    const version = await this.versions.current(scope);
    const entry = this.entries.get(key);
    if (entry && entry.version === version && Date.now() - entry.at < MAX_AGE_MS) {
      // Re-insert: Map keeps insertion order, so the oldest key is the least recently used.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.count;
    }
    const count = await compute();
    this.entries.set(key, { version, count, at: Date.now() });
    if (this.entries.size > MAX_ENTRIES)
      this.entries.delete(this.entries.keys().next().value as string);
    return count;
  }
}
