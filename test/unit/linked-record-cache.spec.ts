import { cachedRecords } from '../../src/common/records/linked-record-cache';
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
});
