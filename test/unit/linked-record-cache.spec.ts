import { JsonWriter } from '../../src/common/http/json-writer';
import { ByteBudget, cachedRecords } from '../../src/common/records/linked-record-cache';
import { LinkedRecordCache } from '../../src/events/event-records.service';
import type { VenueRecord } from '../../src/venues/venue.mapper';

/*
 * The feed carries its linked-record cache over a head move by dropping the
 * records that changed (FeedRecordCaches.linkedAt). A load that began before
 * such a drop may have read the state before the change: it is answered,
 * but must not be kept, or every later read would embed the old state.
 */

const venue = (id: number, name: string) => ({ id, venue: name }) as unknown as VenueRecord;

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('LinkedRecordCache', () => {
  it('keeps what it loads and re-uses it', async () => {
    const cache = new LinkedRecordCache(10, true);
    const load = jest.fn(async (ids: number[]) => new Map(ids.map((id) => [id, venue(id, 'A')])));
    await cachedRecords(cache, cache.venues, [1, 2], load);
    const again = await cachedRecords(cache, cache.venues, [1, 2], load);
    expect(load).toHaveBeenCalledTimes(1);
    expect([...again.keys()]).toEqual([1, 2]);
    expect(Object.isFrozen(cache.venues.get(1))).toBe(true);
  });

  it('drops changed records only, so the next read loads just those again', async () => {
    const cache = new LinkedRecordCache(10, true);
    await cachedRecords(
      cache,
      cache.venues,
      [1, 2],
      async (ids) => new Map(ids.map((id) => [id, venue(id, 'old')])),
    );
    cache.drop([{ kind: 'venue', id: 2 }]);
    const load = jest.fn(async (ids: number[]) => new Map(ids.map((id) => [id, venue(id, 'new')])));
    const read = await cachedRecords(cache, cache.venues, [1, 2], load);
    expect(load).toHaveBeenCalledWith([2]);
    expect(read.get(1)?.venue).toBe('old');
    expect(read.get(2)?.venue).toBe('new');
  });

  it('answers a load that raced a drop but does not keep it', async () => {
    const cache = new LinkedRecordCache(10, true);
    const slow = deferred<Map<number, VenueRecord>>();
    const racing = cachedRecords(cache, cache.venues, [7], () => slow.promise);
    // Venue 7 changes while the load (of its old state) is on its way.
    cache.drop([{ kind: 'venue', id: 7 }]);
    slow.resolve(new Map([[7, venue(7, 'before the change')]]));
    expect((await racing).get(7)?.venue).toBe('before the change');
    expect(cache.venues.has(7)).toBe(false);

    const read = await cachedRecords(
      cache,
      cache.venues,
      [7],
      async () => new Map([[7, venue(7, 'after the change')]]),
    );
    expect(read.get(7)?.venue).toBe('after the change');
    expect(cache.venues.get(7)?.venue).toBe('after the change');
  });

  it('drops terms of both taxonomies from one store', async () => {
    const cache = new LinkedRecordCache(10, true);
    cache.terms.set(3, { id: 3 } as never);
    cache.organizers.set(3, { id: 3 } as never);
    cache.drop([{ kind: 'term', id: 3 }]);
    expect(cache.terms.has(3)).toBe(false);
    expect(cache.organizers.has(3)).toBe(true);
  });

  it('keeps no more encoded bytes than its budget, its oldest records making room', async () => {
    const size = JsonWriter.sharedBytes(venue(1, 'x'.repeat(100))).byteLength;
    const budget = new ByteBudget(size * 3);
    const cache = new LinkedRecordCache(100, true, budget);
    const load = async (ids: number[]) =>
      new Map(ids.map((id) => [id, venue(id, 'x'.repeat(100))]));
    for (const ids of [[1, 2], [3], [4, 5], [6]]) {
      const read = await cachedRecords(cache, cache.venues, ids, load);
      expect([...read.keys()]).toEqual(ids);
      expect(budget.used).toBeLessThanOrEqual(budget.max);
      expect(budget.used).toBe(cache.venues.size * size);
    }
    cache.drop([{ kind: 'venue', id: 6 }]);
    expect(budget.used).toBe(cache.venues.size * size);
  });

  it('shares one budget between stores; a retired store gives its bytes back and keeps nothing more', async () => {
    const size = JsonWriter.sharedBytes(venue(1, 'y'.repeat(50))).byteLength;
    const budget = new ByteBudget(size * 2);
    const [a, b] = [
      new LinkedRecordCache(100, true, budget),
      new LinkedRecordCache(100, true, budget),
    ];
    const load = async (ids: number[]) => new Map(ids.map((id) => [id, venue(id, 'y'.repeat(50))]));
    await cachedRecords(a, a.venues, [1, 2], load);
    // b would pass the budget a holds: answered, not kept.
    expect((await cachedRecords(b, b.venues, [3], load)).get(3)?.venue).toBe('y'.repeat(50));
    expect(b.venues.size).toBe(0);
    a.retire();
    expect(budget.used).toBe(0);
    await cachedRecords(a, a.venues, [1], load);
    expect(a.venues.size).toBe(0);
    await cachedRecords(b, b.venues, [3], load);
    expect(budget.used).toBe(size);
  });

  it('answers the records it held when making room for the ones it loads', async () => {
    const cache = new LinkedRecordCache(2, true);
    const load = async (ids: number[]) => new Map(ids.map((id) => [id, venue(id, `V${id}`)]));
    await cachedRecords(cache, cache.venues, [1, 2], load);
    const read = await cachedRecords(cache, cache.venues, [1, 2, 3], load);
    expect([...read.keys()]).toEqual([1, 2, 3]);
    expect(read.get(1)?.venue).toBe('V1');
  });

  it('keeps venues and organizers as their bytes behind a stand-in when it keeps bytes only; terms whole', async () => {
    const budget = new ByteBudget(1024 * 1024);
    const cache = new LinkedRecordCache(100, true, budget, true);
    const full = (id: number) =>
      ({
        id,
        author: '7',
        status: 'draft',
        venue: `Zaal ${id} "é"`,
        address: { city: 'Utrecht' },
      }) as unknown as VenueRecord;
    const first = await cachedRecords(
      cache,
      cache.venues,
      [1],
      async (ids) => new Map(ids.map((id) => [id, full(id)])),
    );
    // The read that loaded it is answered the record itself.
    expect(first.get(1)?.venue).toBe('Zaal 1 "é"');
    const kept = cache.venues.get(1) as unknown as Record<string, unknown>;
    expect({ ...kept }).toEqual({ id: 1, author: '7', status: 'draft' });
    expect(Object.isFrozen(kept)).toBe(true);
    const bytes = Buffer.from(JSON.stringify(full(1)));
    expect(budget.used).toBe(bytes.byteLength);
    // Embedded, it is written as the whole record: by a JsonWriter from its bytes, and by
    // JSON.stringify too (its toJSON).
    const event = { id: 9, venue: kept, organizer: [kept] };
    const out = new JsonWriter();
    out.object(event);
    const expected = JSON.stringify({ id: 9, venue: full(1), organizer: [full(1)] });
    expect(out.bytes().toString()).toBe(expected);
    expect(JSON.stringify(event)).toBe(expected);
    expect((await cachedRecords(cache, cache.venues, [1], jest.fn())).get(1)).toBe(kept);

    const term = { id: 3, name: 'Jazz', taxonomy: 'tribe_events_cat' };
    await cachedRecords(cache, cache.terms, [3], async () => new Map([[3, term as never]]));
    expect(cache.terms.get(3)).toEqual(term);
  });
});
