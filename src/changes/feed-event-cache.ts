import { JsonWriter, shareJson } from '../common/http/json-writer';
import { CacheStats } from '../metrics/signals';

const stats = new CacheStats('feed_event_records');

/**
 * Event records of the changes feed as anonymous readers see them, per
 * scope (a language and host), by event ID and the sequence number of the
 * change they were read for. Exact: every write that changes what an event
 * shows of itself moves its change to a new number, and a record read for
 * number `seq` was read after that change committed. What it embeds
 * (venues, organizers, terms) can change without moving its number:
 * `invalidate` forgets the records that embed such a change when the feed
 * learns of it, and keeps out records whose read began before. Records are
 * frozen and shared (shareJson), and their JSON bytes encoded as they are
 * kept. One bound for all scopes: it starts over when full.
 */
export class FeedEventCache<R extends object> {
  private readonly records = new Map<string, { seq: number; record: R }>();
  private generation = 0;

  constructor(private readonly maxRecords: number) {}

  get size(): number {
    return this.records.size;
  }

  /**
   * Forgets the records that `embeds` (something they embed changed), and
   * keeps out every record whose read began before.
   */
  invalidate(embeds: (record: R) => boolean): void {
    this.generation++;
    for (const [key, { record }] of this.records) if (embeds(record)) this.records.delete(key);
  }

  /**
   * The records of these changes in `scope`: those held for the same
   * sequence number from here, the others by `load` (readable ones only)
   * and then held.
   */
  async recordsOf(
    scope: string,
    changes: ReadonlyArray<{ id: number; seq: number }>,
    load: (ids: number[]) => Promise<Map<number, R>>,
  ): Promise<Map<number, R>> {
    const found = new Map<number, R>();
    const missing: Array<{ id: number; seq: number }> = [];
    for (const change of changes) {
      const held = this.records.get(`${scope} ${change.id}`);
      if (held?.seq === change.seq) found.set(change.id, held.record);
      else missing.push(change);
    }
    stats.record(found.size, missing.length);
    if (missing.length === 0) return found;
    const generation = this.generation;
    const loaded = await load(missing.map((change) => change.id));
    const keep = this.generation === generation;
    if (keep && this.records.size + loaded.size > this.maxRecords) this.records.clear();
    for (const { id, seq } of missing) {
      const record = loaded.get(id);
      if (!record) continue;
      // Encoded now: a record read ahead (warm) is then all ready for the poll.
      if (keep) JsonWriter.sharedBytes(shareJson(record));
      found.set(id, record);
      const key = `${scope} ${id}`;
      // A newer number held already stays: this read may be older than its change.
      if (keep && (this.records.get(key)?.seq ?? -1) < seq) this.records.set(key, { seq, record });
    }
    return found;
  }
}
