import { FeedReadAhead } from '../../src/changes/feed-read-ahead';

/*
 * Pages of the changes feed read ahead (ChangesService.page): each is
 * answered once, only at the data version it was read at, and never
 * when its read failed or it grew old.
 */
describe('FeedReadAhead', () => {
  afterEach(() => jest.useRealTimers());

  it('answers a page once, at the version it was read at', async () => {
    const ahead = new FeedReadAhead<string>();
    const read = jest.fn(async () => 'page 2');
    ahead.start('a', 7, read);
    ahead.start('a', 7, read);
    expect(read).toHaveBeenCalledTimes(1);
    await expect(ahead.take('a', 7)).resolves.toBe('page 2');
    await expect(ahead.take('a', 7)).resolves.toBeUndefined();
  });

  it('drops a page when the data changed since, or when it is another key', async () => {
    const ahead = new FeedReadAhead<string>();
    ahead.start('a', 7, async () => 'page 2');
    await expect(ahead.take('b', 7)).resolves.toBeUndefined();
    await expect(ahead.take('a', 8)).resolves.toBeUndefined();
    await expect(ahead.take('a', 7)).resolves.toBeUndefined();
  });

  it('leaves a failed read to the request, without an unhandled rejection', async () => {
    const ahead = new FeedReadAhead<string>();
    ahead.start('a', 1, () => Promise.reject(new Error('connection lost')));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(ahead.take('a', 1)).resolves.toBeUndefined();
  });

  it('keeps a bounded number of pages, for a bounded time, and reads nothing more ahead when full', async () => {
    const ahead = new FeedReadAhead<string>(2, 1_000);
    const read = jest.fn(async (key: string) => key);
    for (const key of ['a', 'b', 'c']) ahead.start(key, 1, () => read(key));
    expect(read.mock.calls).toEqual([['a'], ['b']]);
    await expect(ahead.take('c', 1)).resolves.toBeUndefined();
    await expect(ahead.take('a', 1)).resolves.toBe('a');
    jest.useFakeTimers({ now: Date.now() + 1_001 });
    await expect(ahead.take('b', 1)).resolves.toBeUndefined();
  });

  it('makes room by dropping pages older than their age', async () => {
    const ahead = new FeedReadAhead<string>(1, 1_000);
    ahead.start('a', 1, async () => 'a');
    jest.useFakeTimers({ now: Date.now() + 1_001 });
    ahead.start('b', 1, async () => 'b');
    await expect(ahead.take('b', 1)).resolves.toBe('b');
  });
});
