import { JsonWriter, shareJson } from '../http/json-writer';
import type { CacheStats } from '../../metrics/signals';

/**
 * Records by ID shared by the reads of one data version (one store per
 * version, language and host: VersionedCacheService), frozen with their
 * encoded JSON (shareJson), so an answer that shows one again is written
 * from its bytes instead of mapping and stringifying it again. Bounded by
 * those bytes: the oldest records make room; a record larger than the whole
 * bound is answered, not kept.
 */
export class SharedRecordBytes<R extends object> {
  private readonly records = new Map<number, { record: R; size: number }>();
  private used = 0;

  constructor(
    readonly maxBytes: number,
    private readonly stats: CacheStats,
  ) {}

  get size(): number {
    return this.records.size;
  }

  get bytes(): number {
    return this.used;
  }

  /** The records kept of these IDs (counted as hits and misses). */
  found(ids: readonly number[]): Map<number, R> {
    const found = new Map<number, R>();
    for (const id of ids) {
      const kept = this.records.get(id);
      if (kept) found.set(id, kept.record);
    }
    this.stats.record(found.size, ids.length - found.size);
    return found;
  }

  /** Keeps `record` (frozen and encoded now); answers the shared record to show. */
  keep(id: number, record: R): R {
    const shared = shareJson(record);
    const size = JsonWriter.sharedBytes(shared).byteLength;
    this.forget(id);
    if (size > this.maxBytes) return shared;
    // Insertion order: the first entries are the oldest.
    for (const oldest of this.records.keys()) {
      if (this.used + size <= this.maxBytes) break;
      this.forget(oldest);
    }
    this.records.set(id, { record: shared, size });
    this.used += size;
    return shared;
  }

  private forget(id: number): void {
    const kept = this.records.get(id);
    if (!kept) return;
    this.records.delete(id);
    this.used -= kept.size;
  }
}
