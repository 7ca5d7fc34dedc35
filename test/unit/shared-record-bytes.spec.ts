import fc from 'fast-check';
import { JsonWriter } from '../../src/common/http/json-writer';
import { SharedRecordBytes } from '../../src/common/records/shared-record-bytes';
import { CacheStats } from '../../src/metrics/signals';

const sizeOf = (record: object) => Buffer.byteLength(JSON.stringify(record));

describe('SharedRecordBytes', () => {
  const stats = () => {
    const counted = { hits: 0, misses: 0 };
    const cacheStats = new CacheStats('list_event_records');
    jest.spyOn(cacheStats, 'record').mockImplementation((hits, misses) => {
      counted.hits += hits;
      counted.misses += misses;
    });
    return { counted, cacheStats };
  };

  it('keeps records frozen with their JSON bytes, and counts hits and misses', () => {
    const { counted, cacheStats } = stats();
    const store = new SharedRecordBytes<{ id: number; title: string }>(1_000, cacheStats);
    const shown = store.keep(1, { id: 1, title: 'Concert “één”' });
    expect(Object.isFrozen(shown)).toBe(true);
    expect(JsonWriter.sharedBytes(shown).toString('utf8')).toBe(JSON.stringify(shown));
    expect([...store.found([1, 2])]).toEqual([[1, shown]]);
    expect(counted).toEqual({ hits: 1, misses: 1 });
    expect(store.bytes).toBe(sizeOf(shown));
  });

  it('answers a record larger than its bound without keeping it', () => {
    const store = new SharedRecordBytes<{ id: number; text: string }>(50, stats().cacheStats);
    const shown = store.keep(1, { id: 1, text: 'x'.repeat(100) });
    expect(shown.text).toHaveLength(100);
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
  });

  it('never holds more bytes than its bound, keeps the newest, and counts exactly what it holds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 400 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 12 }), fc.string({ maxLength: 120 })), {
          maxLength: 60,
        }),
        (max, writes) => {
          const store = new SharedRecordBytes<{ id: number; text: string }>(
            max,
            stats().cacheStats,
          );
          for (const [id, text] of writes) {
            store.keep(id, { id, text });
            const held = store.found([...Array(12).keys()].map((i) => i + 1));
            const bytes = [...held.values()].reduce((sum, record) => sum + sizeOf(record), 0);
            expect(store.bytes).toBe(bytes);
            expect(bytes).toBeLessThanOrEqual(max);
            // The newest is held unless it alone is over the bound; an ID's older record never is.
            if (sizeOf({ id, text }) <= max) expect(held.get(id)).toEqual({ id, text });
            else expect(held.has(id)).toBe(false);
          }
        },
      ),
    );
  });
});
