import { FeedRecordCaches } from '../../src/changes/feed-record-caches';
import { EventsService } from '../../src/events/events.service';
import { FeedClient, feedPage, postOk, readAsFeed } from './helpers/changes';
import { eventually } from './helpers/webhook-receiver';
import { API, createTestApp, TestApp, UserName } from './helpers/test-app';

/*
 * The event records the feed keeps for anonymous polls (FeedEventCache): read
 * once per change, also ahead of the poll right after a write (warm), and
 * never shown once what they embed has changed.
 */
describe('changes feed: event records kept for anonymous polls', () => {
  let t: TestApp;
  /** The event IDs of every read of event records for the feed, in order. */
  let reads: number[][];
  beforeAll(async () => {
    t = await createTestApp();
    // One port for every request, so the absolute URLs of records compare equal across requests.
    await t.app.listen(0, '127.0.0.1');
    const events = t.app.get(EventsService);
    const feedRecords = events.feedRecords.bind(events);
    jest.spyOn(events, 'feedRecords').mockImplementation(async (ids, ...rest) => {
      const records = await feedRecords(ids, ...rest);
      reads.push([...ids]);
      return records;
    });
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    reads = [];
  });

  const post = (path: string, body: object, user: UserName = 'editor') =>
    postOk(t, path, body, user);
  /** The single GET's body without json_ld: what an upsert carries. */
  const read = (path: string, user?: UserName) => readAsFeed(t, path, user);
  const event = (title: string, extra: object = {}) => ({
    title,
    start_date: '2030-05-01 20:00:00',
    end_date: '2030-05-01 23:00:00',
    ...extra,
  });
  /**
   * `reads.length` once no read ahead is pending or running. The read ahead runs on a timer
   * after each write to an event while an anonymous client polled in the last minute (also
   * one of an earlier test): a count taken before it landed would take its reads for the next
   * write's, or for the poll's.
   */
  const settled = async () => {
    const caches = t.app.get(FeedRecordCaches) as unknown as { warming: boolean };
    await eventually(
      async () => caches.warming,
      (warming) => !warming,
    );
    return reads.length;
  };
  /** Resolves once the feed has read `id` ahead after a write (no poll asked for it). */
  const warmed = (id: number, readsBefore: number) =>
    eventually(
      async () => reads.slice(readsBefore),
      (after) => after.some((ids) => ids.includes(id)),
    );

  it('reads a changed event ahead of the next anonymous poll, which then answers it as a read would', async () => {
    const venue = await post('/venues', { venue: 'Zaal' });
    const created = await post('/events', event('Concert', { venue: venue.id }));
    const client = new FeedClient(t);
    await client.sync();

    const before = await settled();
    await post(`/events/${created.id}`, { title: 'Concert!' });
    await warmed(created.id, before);
    const readsBeforePoll = await settled();
    const [entry] = await client.sync();
    expect(entry).toMatchObject({ kind: 'event', id: created.id, type: 'upsert' });
    expect(entry.record).toEqual(await read(`/events/${created.id}`));
    expect(entry.record).toMatchObject({ title: 'Concert!' });
    // The poll took the record read ahead.
    expect(reads.length).toBe(readsBeforePoll);
  });

  it('leaves an event whose read ahead failed (database down) to the poll, which reads it itself', async () => {
    const created = await post('/events', event('Concert'));
    const client = new FeedClient(t);
    await client.sync();

    const feedRecords = jest.mocked(t.app.get(EventsService).feedRecords);
    await settled();
    const calls = feedRecords.mock.calls.length;
    feedRecords.mockImplementationOnce(() => Promise.reject(new Error('database down')));
    await post(`/events/${created.id}`, { title: 'Concert!' });
    await eventually(
      async () => feedRecords.mock.calls.length,
      (count) => count > calls,
    );
    const readsBeforePoll = await settled();
    const [entry] = await client.sync();
    expect(entry.record).toEqual(await read(`/events/${created.id}`));
    expect(entry.record).toMatchObject({ title: 'Concert!' });
    expect(reads.slice(readsBeforePoll)).toEqual([[created.id]]);
  });

  it('reads a created event ahead with the counts of its terms as the create left them', async () => {
    const category = await post('/categories', { name: 'Muziek' });
    const client = new FeedClient(t);
    await client.sync();

    const before = await settled();
    const created = await post('/events', event('Concert', { categories: [category.id] }));
    await warmed(created.id, before);
    const readsBeforePoll = await settled();
    const seen = await client.sync();
    expect(seen.map((entry) => `${entry.kind}:${entry.id}`)).toEqual([
      `category:${category.id}`,
      `event:${created.id}`,
    ]);
    expect(client.records.get(`event:${created.id}`)).toEqual(await read(`/events/${created.id}`));
    expect(client.records.get(`event:${created.id}`)).toMatchObject({
      categories: [{ id: category.id, count: 1 }],
    });
    expect(reads.length).toBe(readsBeforePoll);
  });

  it('shows an event read ahead with the venue as renamed after that read, when one page holds both', async () => {
    const venue = await post('/venues', { venue: 'Zaal' });
    const created = await post('/events', event('Concert', { venue: venue.id }));
    const behind = new FeedClient(t);
    await behind.sync();

    const before = await settled();
    await post(`/events/${created.id}`, { title: 'Concert!' });
    await warmed(created.id, before);
    // Another client's poll takes it too; then the venue it embeds changes.
    await new FeedClient(t).sync();
    await post(`/venues/${venue.id}`, { venue: 'Grote zaal' });

    const seen = await behind.sync();
    expect(seen.map((entry) => `${entry.kind}:${entry.id}`)).toEqual([
      `event:${created.id}`,
      `venue:${venue.id}`,
    ]);
    expect(behind.records.get(`event:${created.id}`)).toEqual(await read(`/events/${created.id}`));
    expect(behind.records.get(`event:${created.id}`)).toMatchObject({
      venue: { venue: 'Grote zaal' },
    });
  });

  it('shows an event read ahead after a rename of its venue that no poll has seen yet with the new name', async () => {
    const venue = await post('/venues', { venue: 'Zaal' });
    const created = await post('/events', event('Concert', { venue: venue.id }));
    const client = new FeedClient(t, undefined, { kinds: 'events' });
    await client.sync();
    // Feed records of the venue are kept from the sync: the rename is the feed's to learn.
    await post(`/venues/${venue.id}`, { venue: 'Grote zaal' });
    const before = await settled();
    await post(`/events/${created.id}`, { title: 'Concert!' });
    await warmed(created.id, before);

    await client.sync();
    expect(client.records.get(`event:${created.id}`)).toEqual(await read(`/events/${created.id}`));
    expect(client.records.get(`event:${created.id}`)).toMatchObject({
      title: 'Concert!',
      venue: { venue: 'Grote zaal' },
    });
  });

  it('keeps records for anonymous readers only: editors and drafts get their own reads', async () => {
    const secret = await post('/events', event('Secret', { password: 'open sesame', cost: '10' }));
    const draft = await post('/events', event('Draft', { status: 'draft' }));
    const anonymous = new FeedClient(t);
    const editor = new FeedClient(t, t.auth.editor);
    await anonymous.sync();
    await editor.sync();

    const before = await settled();
    await post(`/events/${secret.id}`, { title: 'Secret!' });
    await post(`/events/${draft.id}`, { title: 'Draft!' });
    await warmed(secret.id, before);
    await anonymous.sync();
    await editor.sync();
    expect(anonymous.records.get(`event:${secret.id}`)).toMatchObject({
      title: 'Secret!',
      password_protected: true,
      description: '',
      cost: '',
    });
    expect(anonymous.records.has(`event:${draft.id}`)).toBe(false);
    expect(editor.records.get(`event:${secret.id}`)).toEqual(
      await read(`/events/${secret.id}`, 'editor'),
    );
    expect(editor.records.get(`event:${draft.id}`)).toEqual(
      await read(`/events/${draft.id}`, 'editor'),
    );
  });
});

describe('changes feed: no event records read ahead without anonymous polls', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('reads nothing ahead while only editors poll', async () => {
    t = await createTestApp();
    const events = t.app.get(EventsService);
    const feedRecords = jest.spyOn(events, 'feedRecords');
    const created = await t
      .http()
      .post(`${API}/events`)
      .set('Authorization', t.auth.editor)
      .send({
        title: 'Concert',
        start_date: '2030-05-01 20:00:00',
        end_date: '2030-05-01 23:00:00',
      })
      .expect(201);
    await feedPage(t, {}, t.auth.editor);
    const before = feedRecords.mock.calls.length;
    await t
      .http()
      .post(`${API}/events/${created.body.id}`)
      .set('Authorization', t.auth.editor)
      .send({ title: 'Concert!' })
      .expect(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(feedRecords.mock.calls.length).toBe(before);
    // An editor's poll reads its own records.
    await feedPage(t, {}, t.auth.editor);
    expect(feedRecords.mock.calls.length).toBe(before + 1);
  });
});
