import { Injectable, Logger } from '@nestjs/common';
import { DataVersionService } from './data-version.service';
import { CacheStats } from '../../metrics/signals';
import { VersionStampedLru } from './version-stamped-lru';

const MAX_ENTRIES = 1000;

/**
 * Exact list totals without counting every time: a total is reused while the
 * data version it was counted at is still current, so a write on any
 * instance invalidates it. Requests that miss the same total at once share
 * one count (ten concurrent lists of a 1M-event window would otherwise count
 * ten times), and a total that is only old, not outdated, is answered while
 * one request counts it again.
 */
@Injectable()
export class CountCacheService {
  private readonly logger = new Logger('CountCache');
  private readonly counts = new VersionStampedLru<number>(
    MAX_ENTRIES,
    Date.now,
    new CacheStats('list_counts'),
  );
  private readonly counting = new Map<string, Promise<number>>();

  constructor(private readonly versions: DataVersionService) {}

  /** `scope`: the request's context, so the request reads the data version once. */
  async count(key: string, compute: () => Promise<number>, scope?: object): Promise<number> {
    const version = await this.versions.current(scope);
    const cached = this.counts.lookup(key, version);
    if (cached && !cached.stale) return cached.value;
    const counting = this.countOnce(key, version, compute);
    if (!cached) return counting;
    // The version has not moved: the old total is exact unless a bump failed; the recount checks.
    counting.catch((error: Error) => this.logger.warn(`recount failed: ${error.message}`));
    return cached.value;
  }

  private countOnce(key: string, version: number, compute: () => Promise<number>) {
    const flight = `${version} ${key}`;
    let pending = this.counting.get(flight);
    if (!pending) {
      pending = compute().then(
        (count) => {
          this.counting.delete(flight);
          this.counts.set(key, count, version);
          return count;
        },
        (error: unknown) => {
          this.counting.delete(flight);
          throw error;
        },
      );
      this.counting.set(flight, pending);
    }
    return pending;
  }
}
