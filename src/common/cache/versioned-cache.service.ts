import { Injectable } from '@nestjs/common';
import { DataVersionService } from './data-version.service';
import { MAX_AGE_MS } from './version-stamped-lru';
/** Distinct keys kept at once (a key is e.g. a language and host). */
const MAX_KEYS = 16;

/**
 * Values that stay exact while the shared data version does not move, kept
 * per instance and shared by its requests (docs/performance.md). Every write
 * on any instance bumps the version, so the first request to see a new
 * version drops them all; readers of the same version share them.
 */
@Injectable()
export class VersionedCacheService {
  private version?: number;
  private since = 0;
  private readonly values = new Map<string, unknown>();

  constructor(private readonly versions: DataVersionService) {}

  /** The value of `key` at the data version `scope` (a request's context) reads. */
  async get<T>(key: string, create: () => T, scope: object): Promise<T> {
    const version = await this.versions.current(scope);
    const now = Date.now();
    if (version !== this.version || now - this.since > MAX_AGE_MS) {
      this.values.clear();
      this.version = version;
      this.since = now;
    }
    let value = this.values.get(key) as T | undefined;
    if (value === undefined) {
      if (this.values.size >= MAX_KEYS) this.values.clear();
      value = create();
      this.values.set(key, value);
    }
    return value;
  }
}
