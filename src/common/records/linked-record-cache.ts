import { CacheStats } from '../../metrics/signals';
import { shareJson } from '../http/json-writer';

const linkedRecordStats = new CacheStats('linked_records');

/**
 * Term, organizer and venue records (the records events embed), mapped once
 * and re-used: across the batches of one long read (a feed), or by every
 * read of one language and host while the data version holds (`shared`, see
 * EventRecordsService.sharedLinks). Each kind is capped, so memory stays
 * bounded whatever the data's size. Declared here, below the kinds, so each
 * kind's reader (RecordReaders) can read through it; events/ types it by kind
 * (LinkedRecordCache).
 */
export class LinkedRecordStore<T extends object = object, O extends object = object, V extends object = object> {
  readonly terms = new Map<number, T>();
  readonly organizers = new Map<number, O>();
  readonly venues = new Map<number, V>();
  /**
   * Moved by every `drop`: a load that began before a drop may hold a state
   * older than the one dropped, so it is answered but not kept.
   */
  private generation = 0;

  constructor(
    readonly maxPerKind = 20_000,
    /** Shared by concurrent requests: records are frozen, so no answer can change another's. */
    readonly shared = false,
  ) {}

  get currentGeneration(): number {
    return this.generation;
  }

  /** Forgets these records (they changed); later reads load them again. */
  drop(records: Iterable<{ kind: 'venue' | 'organizer' | 'term'; id: number }>): void {
    this.generation++;
    const stores = { venue: this.venues, organizer: this.organizers, term: this.terms };
    for (const { kind, id } of records) stores[kind].delete(id);
  }
}

/** Records by ID: those in `store` from there, the rest loaded (and kept while there is room). */
export async function cachedRecords<R extends object>(
  cache: LinkedRecordStore | undefined,
  store: Map<number, R> | undefined,
  ids: number[],
  load: (ids: number[]) => Promise<Map<number, R>>,
): Promise<Map<number, R>> {
  if (!cache || !store) return load(ids);
  // Once per ID: a feed batch links ~2,500 terms, of a few dozen.
  const unique = [...new Set(ids)];
  const missing = unique.filter((id) => !store.has(id));
  linkedRecordStats.record(unique.length - missing.length, missing.length);
  const generation = cache.currentGeneration;
  const loaded = missing.length > 0 ? await load(missing) : new Map<number, R>();
  if (cache.currentGeneration === generation) {
    if (store.size + loaded.size > cache.maxPerKind) store.clear();
    for (const [id, record] of loaded) store.set(id, cache.shared ? shareJson(record) : record);
  }
  const records = new Map<number, R>();
  for (const id of unique) {
    const record = store.get(id) ?? loaded.get(id);
    if (record) records.set(id, record);
  }
  return records;
}
