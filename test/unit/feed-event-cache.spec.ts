import { JsonWriter } from '../../src/common/http/json-writer';
import { FeedEventCache } from '../../src/changes/feed-event-cache';

type Rec = { id: number; title: string; venue?: { id: number } };

/** A loader that counts what it was asked for and answers `title@n` for the n-th load. */
function loader(unreadable: number[] = []) {
  const asked: number[][] = [];
  const load = async (ids: number[]) => {
    asked.push(ids);
    return new Map(
      ids
        .filter((id) => !unreadable.includes(id))
        .map((id) => [id, { id, title: `t${id}@${asked.length}` }]),
    );
  };
  return { asked, load };
}

describe('FeedEventCache', () => {
  it('answers a record held for the same change number, and reads it again for another', async () => {
    const cache = new FeedEventCache<Rec>(10);
    const { asked, load } = loader();
    const first = await cache.recordsOf(
      'nl',
      [
        { id: 1, seq: 5 },
        { id: 2, seq: 6 },
      ],
      load,
    );
    expect([...first.values()].map((r) => r.title)).toEqual(['t1@1', 't2@1']);

    const again = await cache.recordsOf(
      'nl',
      [
        { id: 1, seq: 5 },
        { id: 2, seq: 9 },
      ],
      load,
    );
    expect(again.get(1)).toBe(first.get(1));
    expect(again.get(2)?.title).toBe('t2@2');
    expect(asked).toEqual([[1, 2], [2]]);
  });

  it('keeps records frozen with their JSON encoded, and keeps no unreadable ones', async () => {
    const cache = new FeedEventCache<Rec>(10);
    const { asked, load } = loader([3]);
    const records = await cache.recordsOf(
      'nl',
      [
        { id: 1, seq: 1 },
        { id: 3, seq: 2 },
      ],
      load,
    );
    expect(records.has(3)).toBe(false);
    expect(Object.isFrozen(records.get(1))).toBe(true);
    expect(JsonWriter.sharedBytes(records.get(1)!).toString()).toBe(JSON.stringify(records.get(1)));
    await cache.recordsOf('nl', [{ id: 3, seq: 2 }], load);
    expect(asked).toEqual([[1, 3], [3]]);
    expect(cache.size).toBe(1);
  });

  it('forgets the records that embed a changed record, and only those', async () => {
    const cache = new FeedEventCache<Rec>(10);
    const load = async (ids: number[]) =>
      new Map(ids.map((id) => [id, { id, title: `t${id}`, venue: { id: id * 10 } }]));
    await cache.recordsOf(
      'nl',
      [
        { id: 1, seq: 1 },
        { id: 2, seq: 2 },
      ],
      load,
    );
    cache.invalidate((record) => record.venue?.id === 20);
    const reload = jest.fn(load);
    await cache.recordsOf(
      'nl',
      [
        { id: 1, seq: 1 },
        { id: 2, seq: 2 },
      ],
      reload,
    );
    expect(reload).toHaveBeenCalledWith([2]);
  });

  it('does not keep a record whose read began before an invalidation (it may embed the old state)', async () => {
    const cache = new FeedEventCache<Rec>(10);
    let release!: () => void;
    const slow = (ids: number[]) =>
      new Promise<Map<number, Rec>>((resolve) => {
        release = () => resolve(new Map(ids.map((id) => [id, { id, title: 'old venue' }])));
      });
    const reading = cache.recordsOf('nl', [{ id: 1, seq: 1 }], slow);
    cache.invalidate(() => true);
    release();
    // The reader gets its answer, but it is not kept.
    expect((await reading).get(1)?.title).toBe('old venue');
    expect(cache.size).toBe(0);
  });

  it('keeps the newest change of a record when an older read finishes last', async () => {
    const cache = new FeedEventCache<Rec>(10);
    const { load } = loader();
    await cache.recordsOf('nl', [{ id: 1, seq: 8 }], load);
    await cache.recordsOf('nl', [{ id: 1, seq: 7 }], load);
    const { asked, load: count } = loader();
    await cache.recordsOf('nl', [{ id: 1, seq: 8 }], count);
    expect(asked).toEqual([]);
  });

  it('keeps each scope (language and host) apart, and forgets embedding records in all of them', async () => {
    const cache = new FeedEventCache<Rec>(10);
    const load = jest.fn(
      async (ids: number[]) => new Map(ids.map((id) => [id, { id, title: 't', venue: { id: 5 } }])),
    );
    await cache.recordsOf('nl', [{ id: 1, seq: 1 }], load);
    await cache.recordsOf('en', [{ id: 1, seq: 1 }], load);
    await cache.recordsOf('nl', [{ id: 1, seq: 1 }], load);
    expect(load).toHaveBeenCalledTimes(2);
    cache.invalidate((record) => record.venue?.id === 5);
    expect(cache.size).toBe(0);
  });

  it('starts over when full', async () => {
    const cache = new FeedEventCache<Rec>(3);
    const { load } = loader();
    await cache.recordsOf(
      'nl',
      [1, 2, 3].map((id) => ({ id, seq: id })),
      load,
    );
    expect(cache.size).toBe(3);
    await cache.recordsOf('nl', [{ id: 4, seq: 4 }], load);
    expect(cache.size).toBe(1);
  });
});
