import { CountCacheService } from '../../src/common/cache/count-cache.service';
import type { DataVersionService } from '../../src/common/cache/data-version.service';
import { MAX_AGE_MS } from '../../src/common/cache/version-stamped-lru';

describe('CountCacheService', () => {
  let version = 1;
  const versions = { current: () => Promise.resolve(version) } as unknown as DataVersionService;
  const deferred = () => {
    let resolve!: (n: number) => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<number>((res, rej) => ((resolve = res), (reject = rej)));
    return { promise, resolve, reject };
  };

  beforeEach(() => (version = 1));

  it('counts once for requests that miss the same total at the same time', async () => {
    const cache = new CountCacheService(versions);
    const count = deferred();
    const compute = jest.fn(() => count.promise);
    const waiting = Promise.all([1, 2, 3].map(() => cache.count('k', compute)));
    await new Promise((r) => setImmediate(r));
    count.resolve(42);
    expect(await waiting).toEqual([42, 42, 42]);
    expect(compute).toHaveBeenCalledTimes(1);
    // And keeps it for the version.
    expect(await cache.count('k', compute)).toBe(42);
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it('counts again at a new version, and after a failed count', async () => {
    const cache = new CountCacheService(versions);
    const compute = jest.fn().mockRejectedValueOnce(new Error('time-out')).mockResolvedValue(7);
    await expect(cache.count('k', compute)).rejects.toThrow('time-out');
    expect(await cache.count('k', compute)).toBe(7);
    version = 2;
    expect(await cache.count('k', compute)).toBe(7);
    expect(compute).toHaveBeenCalledTimes(3);
  });

  it('answers an old total of the same version at once and counts it again behind it', async () => {
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const cache = new CountCacheService(versions);
      const recount = deferred();
      const compute = jest
        .fn()
        .mockResolvedValueOnce(5)
        .mockImplementationOnce(() => recount.promise);
      expect(await cache.count('k', compute)).toBe(5);
      now += MAX_AGE_MS;
      expect(await cache.count('k', compute)).toBe(5);
      expect(compute).toHaveBeenCalledTimes(2);
      recount.resolve(6);
      await new Promise((r) => setImmediate(r));
      expect(await cache.count('k', compute)).toBe(6);
      expect(compute).toHaveBeenCalledTimes(2);
    } finally {
      jest.restoreAllMocks();
    }
  });
});
