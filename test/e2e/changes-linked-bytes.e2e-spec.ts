import { FeedRecordCaches } from '../../src/changes/feed-record-caches';
import { dayAt } from './helpers/events';
import { feedPage, FeedPage, postOk, readAsFeed } from './helpers/changes';
import { createTestApp, TestApp } from './helpers/test-app';

/*
 * The venue, organizer and term records the changes feed keeps for its reads
 * (FeedRecordCaches) are bounded by their encoded bytes, of all languages
 * and hosts together: a sync over more than fits starts over or reads them
 * again, and still answers every record as its single read shows it.
 */
describe('changes feed: the linked records kept stay within their byte budget', () => {
  let t: TestApp;
  let caches: FeedRecordCaches;
  let saved: number;
  beforeAll(async () => {
    t = await createTestApp();
    // One port for every request, so the absolute URLs of records compare equal across requests.
    await t.app.listen(0, '127.0.0.1');
    caches = t.app.get(FeedRecordCaches);
    saved = caches.linkedBytes.max;
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());
  afterEach(() => {
    caches.linkedBytes.max = saved;
  });

  /** Six events, each at a venue and with an organizer of its own, their texts about 1 KB. */
  async function seed(): Promise<number[]> {
    const events: number[] = [];
    for (let i = 0; i < 6; i++) {
      const long = `Een lange beschrijving van plek ${i}. `.repeat(30);
      const venue = await postOk(t, '/venues', { venue: `Zaal ${i}`, description: long });
      const organizer = await postOk(t, '/organizers', { organizer: `Stichting ${i}`, description: long });
      const event = await postOk(t, '/events', {
        title: `Concert ${i}`,
        status: 'publish',
        start_date: dayAt(i + 1, '20:00:00'),
        end_date: dayAt(i + 1, '22:00:00'),
        venue: venue.id,
        organizer: [organizer.id],
      });
      events.push(event.id);
    }
    return events;
  }

  /** An anonymous sync of two changes a page, checking the budget after every page. */
  async function sync(): Promise<Map<number, Record<string, unknown>>> {
    const events = new Map<number, Record<string, unknown>>();
    let cursor: string | undefined;
    for (;;) {
      const page: FeedPage = await feedPage(t, { per_page: 2, ...(cursor ? { since: cursor } : {}) });
      expect(caches.linkedBytes.used).toBeGreaterThanOrEqual(0);
      expect(caches.linkedBytes.used).toBeLessThanOrEqual(caches.linkedBytes.max);
      for (const entry of page.changes)
        if (entry.kind === 'event' && entry.record) events.set(entry.id, entry.record);
      cursor = page.next_cursor;
      if (!page.has_more) return events;
    }
  }

  it('a sync over more linked records than fit answers every event as its single read', async () => {
    const ids = await seed();
    const expected = new Map<number, Record<string, unknown>>();
    for (const id of ids) expected.set(id, await readAsFeed(t, `/events/${id}`));
    const check = (records: Map<number, Record<string, unknown>>) => {
      expect([...records.keys()].sort()).toEqual([...ids].sort());
      for (const id of ids) expect(records.get(id)).toEqual(expected.get(id));
    };
    check(await sync());
    const used = caches.linkedBytes.used;
    expect(used).toBeGreaterThan(0);
    // Room for about two of the venues and organizers: every later page passes it.
    caches.linkedBytes.max = Math.ceil(used / 5);
    check(await sync());
    check(await sync());
    // Room for none: nothing is kept, and every record is still right.
    caches.linkedBytes.max = 1;
    check(await sync());
    expect(caches.linkedBytes.used).toBe(0);
  });
});
