import { Injectable } from '@nestjs/common';
import { DataVersionService } from './data-version.service';
import { VersionStampedLru } from './version-stamped-lru';

const MAX_ENTRIES = 1000;

/**
 * Exact list totals without counting every time: a total is reused while the
 * data version it was counted at is still current, so a write on any
 * instance invalidates it.
 */
@Injectable()
export class CountCacheService {
  private readonly counts = new VersionStampedLru<number>(MAX_ENTRIES);

  constructor(private readonly versions: DataVersionService) {}

  /** `scope`: the request's context, so the request reads the data version once. */
  async count(key: string, compute: () => Promise<number>, scope?: object): Promise<number> {
    const version = await this.versions.current(scope);
    const cached = this.counts.get(key, version);
    if (cached !== undefined) return cached;
    const count = await compute();
    this.counts.set(key, count, version);
    return count;
  }
}
