import { MAX_AGE_MS, VersionStampedLru } from '../../src/common/cache/version-stamped-lru';

describe('VersionStampedLru', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('gives a value back only at the version it was stored at', () => {
    const lru = new VersionStampedLru<string>(10, clock);
    lru.set('a', 'one', 7);
    expect(lru.get('a', 7)).toBe('one');
    expect(lru.get('a', 8)).toBeUndefined();
    // A value seen at another version is dropped, not kept for later.
    expect(lru.get('a', 7)).toBeUndefined();
  });

  it('forgets a value after MAX_AGE_MS even at the same version', () => {
    const lru = new VersionStampedLru<string>(10, clock);
    lru.set('a', 'one', 1);
    now += MAX_AGE_MS - 1;
    expect(lru.get('a', 1)).toBe('one');
    now += 1;
    expect(lru.get('a', 1)).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the least recently used', () => {
    const lru = new VersionStampedLru<number>(2, clock);
    lru.set('a', 1, 1);
    lru.set('b', 2, 1);
    expect(lru.get('a', 1)).toBe(1); // a is now the most recently used
    lru.set('c', 3, 1);
    expect(lru.size).toBe(2);
    expect(lru.get('b', 1)).toBeUndefined();
    expect(lru.get('a', 1)).toBe(1);
    expect(lru.get('c', 1)).toBe(3);
  });
});
