import { CacheStats } from '../../metrics/signals';
import { encodedStandIn, JsonWriter, shareJson } from '../http/json-writer';

const linkedRecordStats = new CacheStats('linked_records');

/** Records kept per kind by default: every venue and organizer of a 1M-event data set (10,000 each). */
export const LINKED_RECORDS_PER_KIND = 20_000;

/**
 * The JSON bytes some shared record stores may keep together (their records'
 * encoded bytes, which every answer that embeds them is written from). A
 * count alone bounds nothing: a record's size is the data's.
 */
export class ByteBudget {
  used = 0;
  /** Lowered by tests. */
  constructor(public max: number) {}
}

/**
 * Term, organizer and venue records (the records events embed), mapped once
 * and re-used: across the batches of one long read (a feed), or by every
 * read of one language and host while the data version holds (`shared`, see
 * EventRecordsService.sharedLinks). Each kind is capped, and a shared store's
 * encoded bytes by its `budget` (its oldest records of a kind make room), so
 * memory stays bounded whatever the data's size. Declared here, below the
 * kinds, so each kind's reader (RecordReaders) can read through it; events/
 * types it by kind (LinkedRecordCache).
 */
export class LinkedRecordStore<
  T extends object = object,
  O extends object = object,
  V extends object = object,
> {
  readonly terms = new Map<number, T>();
  readonly organizers = new Map<number, O>();
  readonly venues = new Map<number, V>();
  /**
   * Moved by every `drop`: a load that began before a drop may hold a state
   * older than the one dropped, so it is answered but not kept.
   */
  private generation = 0;
  /** The encoded bytes each kept record counts against the budget. */
  private readonly sizes = new WeakMap<object, number>();
  /** Retired (retire): keeps nothing more. */
  private retired = false;

  constructor(
    readonly maxPerKind = LINKED_RECORDS_PER_KIND,
    /** Shared by concurrent requests: records are frozen, so no answer can change another's. */
    readonly shared = false,
    /** Shared stores only: the bytes they may keep (each its own, or several together). */
    readonly budget?: ByteBudget,
    /**
     * Shared stores with a budget only: venues and organizers are kept as
     * their encoded JSON behind a stand-in (encodedStandIn) holding only what
     * embedding them reads (`id`, `author`, `status`), so the budget's bytes
     * are about all they take. For stores whose records only ever reach a
     * JsonWriter (the changes feed's); terms stay whole (events sort and
     * split them by name and taxonomy).
     */
    readonly keepsBytesOnly = false,
  ) {}

  get currentGeneration(): number {
    return this.generation;
  }

  /** Forgets these records (they changed); later reads load them again. */
  drop(records: Iterable<{ kind: 'venue' | 'organizer' | 'term'; id: number }>): void {
    this.generation++;
    const stores = { venue: this.venues, organizer: this.organizers, term: this.terms };
    for (const { kind, id } of records) this.forget(stores[kind], id);
  }

  /** Forgets every record (their bytes go back to the budget); loads under way keep nothing. */
  clear(): void {
    this.generation++;
    for (const store of [this.terms, this.organizers, this.venues] as Array<Map<number, object>>)
      for (const id of [...store.keys()]) this.forget(store, id);
  }

  /** Forgets everything and keeps nothing more: the store is no longer reachable for new reads. */
  retire(): void {
    this.retired = true;
    this.clear();
  }

  /** Forgets one kind's records (it is full). */
  clearKind(store: Map<number, object>): void {
    for (const id of [...store.keys()]) this.forget(store, id);
  }

  /**
   * Keeps a loaded record (frozen when shared) unless that would pass the
   * budget even after starting over; answers the record to show.
   */
  keep<R extends object>(store: Map<number, R>, id: number, record: R): R {
    if (!this.shared) {
      if (!this.retired) store.set(id, record);
      return record;
    }
    const shared = shareJson(record);
    if (this.retired) return shared;
    if (!this.budget) {
      store.set(id, shared);
      return shared;
    }
    const bytes = JsonWriter.sharedBytes(shared);
    const size = bytes.byteLength;
    this.forget(store, id);
    // The kind's oldest records make room (kept in insertion order): a store kept full
    // hits twice as often as one that starts over when full.
    for (const oldest of store.keys()) {
      if (this.budget.used + size <= this.budget.max) break;
      this.forget(store, oldest);
    }
    // Still over: the other stores of a shared budget hold it; answered, not kept.
    if (this.budget.used + size > this.budget.max) return shared;
    const kept =
      this.keepsBytesOnly && store !== (this.terms as Map<number, object>)
        ? encodedStandIn(embeddingMembers(shared), bytes)
        : shared;
    store.set(id, kept as R);
    this.sizes.set(kept, size);
    this.budget.used += size;
    return shared;
  }

  private forget(store: Map<number, object>, id: number): void {
    const record = store.get(id);
    if (record === undefined) return;
    store.delete(id);
    const size = this.sizes.get(record);
    if (size !== undefined && this.budget) {
      this.sizes.delete(record);
      this.budget.used -= size;
    }
  }
}

/** What embedding a venue or organizer reads of it: its ID, and what visibility tests. */
function embeddingMembers(record: object): object {
  const { id, author, status } = record as Record<string, unknown>;
  return { id, author, status };
}

/** Records by ID: those in `store` from there, the rest loaded (and kept while there is room). */
export async function cachedRecords<R extends object>(
  cache: LinkedRecordStore | undefined,
  store: Map<number, R> | undefined,
  ids: number[],
  load: (ids: number[]) => Promise<Map<number, R>>,
): Promise<Map<number, R>> {
  if (!cache || !store) return load(ids);
  // A budget lowered (or shared stores grown) since: this store starts over at once.
  if (cache.budget && cache.budget.used > cache.budget.max) cache.clear();
  // Once per ID: a feed batch links ~2,500 terms, of a few dozen.
  const unique = [...new Set(ids)];
  // Those held are taken now: making room for the loaded ones (or a drop while they load)
  // may forget them before the answer is put together.
  const records = new Map<number, R>();
  const missing: number[] = [];
  for (const id of unique) {
    const held = store.get(id);
    if (held) records.set(id, held);
    else missing.push(id);
  }
  linkedRecordStats.record(unique.length - missing.length, missing.length);
  if (missing.length === 0) return records;
  const generation = cache.currentGeneration;
  const loaded = await load(missing);
  if (cache.currentGeneration === generation) {
    if (store.size + loaded.size > cache.maxPerKind) cache.clearKind(store);
    for (const [id, record] of loaded) cache.keep(store, id, record);
  }
  if (records.size === 0) return loaded;
  // In the order asked, as before.
  const all = new Map<number, R>();
  for (const id of unique) {
    const record = records.get(id) ?? loaded.get(id);
    if (record) all.set(id, record);
  }
  return all;
}
