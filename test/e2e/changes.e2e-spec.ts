import { Test } from '@nestjs/testing';
import request from 'supertest';
import { ChangesRetention } from '../../src/changes/changes-retention.service';
import { ChangeLogReader } from '../../src/changes/change-log-reader';
import {
  FeedClient,
  FeedEntry,
  feedPage,
  feedRequest,
  postOk,
  readAsFeed,
} from './helpers/changes';
import { API, createTestApp, errorBody, TestApp, UserName } from './helpers/test-app';

/*
 * The changes feed (contract §12): initial and incremental sync, kinds,
 * paging, what each caller sees, deletions, linked records, cursors.
 */

const CHANGED_UTC = expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

/** Skipped, and reported so, on SQLite. */
const itOnMysql = process.env.TEST_ENGINE === 'mysql' ? it : it.skip;

describe('changes feed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    // One port for every request, so the absolute URLs of records compare equal across requests.
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  const post = (path: string, body: object, user: UserName = 'editor') =>
    postOk(t, path, body, user);
  const remove = (path: string, user: UserName = 'editor') =>
    t.http().delete(`${API}${path}`).set('Authorization', t.auth[user]).expect(200);
  /** The single GET's body without json_ld: what an upsert carries. */
  const read = (path: string, user?: UserName) => readAsFeed(t, path, user);
  const upsert = (kind: FeedEntry['kind'], record: Record<string, unknown>) => ({
    kind,
    id: record.id,
    type: 'upsert',
    changed_utc: CHANGED_UTC,
    record,
  });
  const deleted = (kind: FeedEntry['kind'], id: number) => ({
    kind,
    id,
    type: 'delete',
    changed_utc: CHANGED_UTC,
  });
  const event = (title: string, extra: object = {}) => ({
    title,
    start_date: '2030-05-01 20:00:00',
    end_date: '2030-05-01 23:00:00',
    ...extra,
  });

  it('starts with every record the caller may read, in commit order, each once in its latest state', async () => {
    const category = await post('/categories', { name: 'Jazz' });
    const tag = await post('/tags', { name: 'Live' });
    const venue = await post('/venues', { venue: 'Paradiso', city: 'Amsterdam' });
    const organizer = await post('/organizers', { organizer: 'Mojo' });
    const created = await post(
      '/events',
      event('Concert', {
        categories: [category.id],
        tags: [tag.id],
        venue: venue.id,
        organizer: [organizer.id],
      }),
    );
    await post(`/venues/${venue.id}`, { city: 'Amsterdam-Centrum' });

    const page = await feedPage(t);
    // The event moved both term counts (recorded with it); the venue changed last.
    expect(page).toEqual({
      changes: [
        upsert('organizer', await read(`/organizers/${organizer.id}`)),
        upsert('category', await read(`/categories/${category.id}`)),
        upsert('tag', await read(`/tags/${tag.id}`)),
        upsert('event', await read(`/events/${created.id}`)),
        upsert('venue', await read(`/venues/${venue.id}`)),
      ],
      next_cursor: expect.any(String),
      has_more: false,
    });
    expect((page.changes[1].record as { count: number }).count).toBe(1);
  });

  it('answers only what changed since the cursor, and the same cursor while nothing changes', async () => {
    const venue = await post('/venues', { venue: 'Paradiso' });
    const organizer = await post('/organizers', { organizer: 'Mojo' });
    const first = await feedPage(t);
    expect(first.changes.map((c) => c.kind)).toEqual(['venue', 'organizer']);

    const idle = await feedPage(t, { since: first.next_cursor });
    expect(idle).toEqual({ changes: [], next_cursor: first.next_cursor, has_more: false });

    await post(`/venues/${venue.id}`, { venue: 'Paradiso Noord' }, 'editor');
    const next = await feedPage(t, { since: first.next_cursor });
    expect(next).toEqual({
      changes: [upsert('venue', await read(`/venues/${venue.id}`))],
      next_cursor: expect.any(String),
      has_more: false,
    });
    expect(next.next_cursor).not.toBe(first.next_cursor);
    expect(await feedPage(t, { since: next.next_cursor })).toEqual({
      changes: [],
      next_cursor: next.next_cursor,
      has_more: false,
    });
    expect(organizer.id).toBe(1);
  });

  it('answers a poll repeated while nothing was written without reading again, and reads after a write', async () => {
    await post('/events', event('Draft', { status: 'draft' }));
    const { next_cursor: cursor } = await feedPage(t);
    const feed = t.app.get(ChangeLogReader);
    const reads = jest.spyOn(feed, 'readChanges');
    try {
      const idle = { changes: [], next_cursor: cursor, has_more: false };
      expect(await feedPage(t, { since: cursor })).toEqual(idle);
      expect(await feedPage(t, { since: cursor })).toEqual(idle);
      expect(reads).toHaveBeenCalledTimes(1);
      // Another caller with the same cursor gets an answer read for it.
      const editor = await feedPage(t, { since: cursor }, t.auth.editor);
      expect(reads).toHaveBeenCalledTimes(2);
      expect(editor.changes).toEqual([]);

      const created = await post('/events', event('Concert'));
      const next = await feedPage(t, { since: cursor });
      expect(reads).toHaveBeenCalledTimes(3);
      expect(next.changes).toEqual([upsert('event', await read(`/events/${created.id}`))]);
    } finally {
      reads.mockRestore();
    }
  });

  it('filters by kinds (comma list or array) and pages with per_page', async () => {
    for (const name of ['A', 'B', 'C']) await post('/venues', { venue: name });
    await post('/tags', { name: 'Live' });
    await post('/organizers', { organizer: 'Mojo' });
    await post('/venues', { venue: 'D' });
    await post('/venues', { venue: 'E' });

    const comma = await feedPage(t, { kinds: 'venues,tags' });
    expect(comma.changes.map((c) => `${c.kind}:${c.id}`)).toEqual([
      'venue:1',
      'venue:2',
      'venue:3',
      'tag:1',
      'venue:4',
      'venue:5',
    ]);
    const array = await t.http().get(`${API}/changes?kinds[]=organizers&kinds[]=tags`).expect(200);
    expect(array.body.changes.map((c: FeedEntry) => `${c.kind}:${c.id}`)).toEqual([
      'tag:1',
      'organizer:1',
    ]);

    const pages: string[][] = [];
    const hasMore: boolean[] = [];
    let since: string | undefined;
    do {
      const page = await feedPage(t, { kinds: 'venues', per_page: 2, ...(since ? { since } : {}) });
      pages.push(page.changes.map((c) => `${c.kind}:${c.id}`));
      hasMore.push(page.has_more);
      since = page.next_cursor;
    } while (hasMore[hasMore.length - 1]);
    expect(pages).toEqual([['venue:1', 'venue:2'], ['venue:3', 'venue:4'], ['venue:5']]);
    expect(hasMore).toEqual([true, true, false]);

    // The kinds can change between requests: the cursor is one position for all of them.
    const rest = await feedPage(t, {
      since: (await feedPage(t, { kinds: 'venues', per_page: 3 })).next_cursor,
    });
    expect(rest.changes.map((c) => `${c.kind}:${c.id}`)).toEqual([
      'tag:1',
      'organizer:1',
      'venue:4',
      'venue:5',
    ]);
  });

  it('rejects bad parameters with 400 naming them', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ kinds: 'events,places' }, 'kinds'],
      [{ per_page: '0' }, 'per_page'],
      [{ per_page: '1001' }, 'per_page'],
      [{ per_page: 'x' }, 'per_page'],
      [{ language: 'de' }, 'language'],
      [{ since: 'x'.repeat(256) }, 'since'],
    ];
    for (const [query, name] of cases) {
      const response = await feedRequest(t, query).expect(400);
      expect(response.body).toEqual(
        errorBody('rest_invalid_param', 400, { [name]: expect.any(String) }),
      );
    }
    const max = await feedPage(t, { per_page: 1000 });
    expect(max.has_more).toBe(false);
  });

  it('shows each caller what it may read: a draft is an upsert for editors and its owner, absent for others', async () => {
    const anonymous = new FeedClient(t);
    const editor = new FeedClient(t, t.auth.editor);
    const owner = new FeedClient(t, t.auth.contributor);
    const other = new FeedClient(t, t.auth.otherContributor);
    await post('/venues', { venue: 'Paradiso' });
    for (const client of [anonymous, editor, owner, other]) await client.sync();

    const draft = await post('/events', event('Draft'), 'contributor');
    expect(draft.status).toBe('draft');
    expect(await editor.sync()).toEqual([
      upsert('event', await read(`/events/${draft.id}`, 'editor')),
    ]);
    expect(await owner.sync()).toEqual([
      upsert('event', await read(`/events/${draft.id}`, 'contributor')),
    ]);
    // Hidden from them: announced as a delete (they cannot hold it).
    expect(await anonymous.sync()).toEqual([deleted('event', draft.id)]);
    expect(await other.sync()).toEqual([deleted('event', draft.id)]);

    // A first sync without `since` leaves hidden records out entirely.
    expect((await feedPage(t)).changes.map((c) => c.kind)).toEqual(['venue']);

    await post(`/events/${draft.id}`, { status: 'publish' }, 'editor');
    expect(await anonymous.sync()).toEqual([upsert('event', await read(`/events/${draft.id}`))]);
    expect(anonymous.keys('event')).toEqual([`event:${draft.id}`]);

    // Unpublishing announces a delete to whoever can no longer read it.
    await post(`/events/${draft.id}`, { status: 'draft' }, 'editor');
    expect(await anonymous.sync()).toEqual([deleted('event', draft.id)]);
    expect(await editor.sync()).toEqual([
      upsert('event', await read(`/events/${draft.id}`, 'editor')),
    ]);
    expect(anonymous.keys('event')).toEqual([]);
  });

  it('announces trash and permanent delete as deletes for everyone, and linked records under their own kind', async () => {
    const anonymous = new FeedClient(t);
    const editor = new FeedClient(t, t.auth.editor);
    const created = await post(
      '/events',
      event('Concert', {
        venue: { venue: 'Inline Hall', city: 'Utrecht' },
        organizer: [{ organizer: 'Inline Org' }],
        categories: ['Jazz'],
      }),
    );
    const venueId = (created.venue as { id: number }).id;
    const organizerId = (created.organizer as Array<{ id: number }>)[0].id;
    const categoryId = (created.categories as Array<{ id: number }>)[0].id;
    // One transaction: the inline venue, organizer and category, the event, the count.
    expect((await anonymous.sync()).map((c) => `${c.kind}:${c.id}`).sort()).toEqual(
      [
        `event:${created.id}`,
        `venue:${venueId}`,
        `organizer:${organizerId}`,
        `category:${categoryId}`,
      ].sort(),
    );
    await editor.sync();

    await remove(`/events/${created.id}`);
    const category = await read(`/categories/${categoryId}`);
    expect(category.count).toBe(0);
    const afterTrash = [upsert('category', category), deleted('event', created.id)];
    expect(await anonymous.sync()).toEqual(afterTrash);
    expect(await editor.sync()).toEqual(afterTrash);

    await remove(`/events/${created.id}?force=true`);
    expect(await anonymous.sync()).toEqual([deleted('event', created.id)]);

    // A venue deleted for good: a delete, remembered as a tombstone.
    await remove(`/venues/${venueId}?force=true`);
    await remove(`/categories/${categoryId}?force=true`);
    expect(await anonymous.sync()).toEqual([
      deleted('venue', venueId),
      deleted('category', categoryId),
    ]);
    expect(anonymous.keys()).toEqual([`organizer:${organizerId}`]);
    // A new client never sees those deletions.
    expect((await feedPage(t)).changes.map((c) => `${c.kind}:${c.id}`)).toEqual([
      `organizer:${organizerId}`,
    ]);
  });

  it('re-announces the events of a venue whose visibility moves, and of a venue that is trashed', async () => {
    const venue = await post('/venues', { venue: 'Paradiso' });
    const linked = await post('/events', event('Concert', { venue: venue.id }));
    const anonymous = new FeedClient(t);
    await anonymous.sync();
    expect((anonymous.records.get(`event:${linked.id}`)?.venue as { id: number }).id).toBe(
      venue.id,
    );

    // Renaming the venue changes only the venue (events embed it, the client refreshes it from there).
    await post(`/venues/${venue.id}`, { venue: 'Paradiso Noord' });
    expect((await anonymous.sync()).map((c) => `${c.kind}:${c.id}`)).toEqual([`venue:${venue.id}`]);

    // Unpublished: the anonymous reader no longer sees it embedded either.
    await post(`/venues/${venue.id}`, { status: 'draft' });
    expect(await anonymous.sync()).toEqual([
      deleted('venue', venue.id),
      upsert('event', await read(`/events/${linked.id}`)),
    ]);
    expect(anonymous.records.get(`event:${linked.id}`)?.venue).toEqual([]);
    await post(`/venues/${venue.id}`, { status: 'publish' });
    expect(await anonymous.sync()).toEqual([
      upsert('venue', await read(`/venues/${venue.id}`)),
      upsert('event', await read(`/events/${linked.id}`)),
    ]);

    await remove(`/venues/${venue.id}`);
    expect(await anonymous.sync()).toEqual([
      upsert('event', await read(`/events/${linked.id}`)),
      deleted('venue', venue.id),
    ]);
    expect(anonymous.records.get(`event:${linked.id}`)?.venue).toEqual([]);
  });

  it('shows password-protected events blanked as in lists, in full to their editors', async () => {
    const created = await post('/events', event('Secret', { password: 'open sesame', cost: '10' }));
    const [anonymous] = (await feedPage(t)).changes;
    const listed = await t.http().get(`${API}/events`).query({ include: created.id }).expect(200);
    expect(anonymous.record).toEqual(listed.body.events[0]);
    expect(anonymous.record).toMatchObject({ password_protected: true, cost: '', description: '' });
    const [editor] = (await feedPage(t, {}, t.auth.editor)).changes;
    expect(editor.record).toEqual(await read(`/events/${created.id}`, 'editor'));
  });

  it('answers in the request language with the fallback of single reads', async () => {
    const venue = await post('/venues', { venue: 'Het Concertgebouw', language: 'nl' });
    await post(`/venues/${venue.id}?language=en`, { venue: 'The Concert Hall' });
    const [en] = (await feedPage(t, { language: 'en' })).changes;
    expect(en.record).toEqual(await read(`/venues/${venue.id}?language=en`));
    const [nl] = (await t.http().get(`${API}/changes`).set('Accept-Language', 'nl').expect(200))
      .body.changes;
    expect(nl.record.venue).toBe('Het Concertgebouw');
  });

  it('rejects a cursor that is not one of ours with 400', async () => {
    await post('/venues', { venue: 'Paradiso' });
    const { next_cursor: cursor } = await feedPage(t);
    const [payload, mac] = cursor.split('.');
    const forged = Buffer.from(
      Buffer.from(payload, 'base64url').toString().replace(/\d+/, '0'),
    ).toString('base64url');
    for (const since of [
      '',
      'abc',
      `${forged}.${mac}`,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `${payload}x.${mac}`,
      cursor + '.',
    ]) {
      const response = await feedRequest(t, { since }).expect(400);
      expect(response.body).toEqual(
        errorBody('rest_invalid_param', 400, { since: expect.any(String) }),
      );
    }
    const english = await feedRequest(t, { since: 'abc', language: 'en' }).expect(400);
    expect(english.body.data.params).toEqual({
      since: 'since is not a cursor of this changes feed.',
    });
  });

  it('expires cursors that are older than the retention of deletions (410), not newer ones', async () => {
    const venue = await post('/venues', { venue: 'Paradiso' });
    await post('/venues', { venue: 'Melkweg' });
    const before = (await feedPage(t)).next_cursor;
    await remove(`/venues/${venue.id}?force=true`);
    const after = (await feedPage(t, { since: before })).next_cursor;

    const retention = t.app.get(ChangesRetention);
    // Not yet older than SYNC_RETENTION_DAYS (30): kept.
    expect(await retention.purgeExpired()).toBe(0);
    expect((await feedPage(t, { since: before })).changes).toEqual([deleted('venue', venue.id)]);

    expect(await retention.purgeExpired(Math.floor(Date.now() / 1000) + 31 * 86_400)).toBe(1);
    const expired = await feedRequest(t, { since: before }).expect(410);
    expect(expired.body).toEqual(errorBody('rest_sync_cursor_expired', 410));
    // A cursor past the purged deletion, and a new sync, still work.
    expect(await feedPage(t, { since: after })).toEqual({
      changes: [],
      next_cursor: after,
      has_more: false,
    });
    expect((await feedPage(t)).changes.map((c) => `${c.kind}:${c.id}`)).toEqual(['venue:2']);
  });

  it('embeds linked records as of the page, also before the write has bumped the data version', async () => {
    const venue = await post('/venues', { venue: 'Zaal' });
    const category = await post('/categories', { name: 'Muziek' });
    const created = await post(
      '/events',
      event('Concert', { venue: venue.id, categories: [category.id] }),
    );
    // Warm the feed's linked records and the lists' (which follow the data version).
    const client = new FeedClient(t);
    await client.sync();
    await t.http().get(`${API}/events`).expect(200);
    const [{ version }] = (await t.dataSource.query('SELECT version FROM data_version')) as Array<{
      version: number | string;
    }>;

    await post(`/venues/${venue.id}`, { venue: 'Grote zaal' });
    await post(`/categories/${category.id}`, { name: 'Klassiek' });
    await post(`/events/${created.id}`, { title: 'Concert!' });
    // As if the version had been read before these writes committed (a request reads it before its page).
    await t.dataSource.query('UPDATE data_version SET version = ? WHERE id = 1', [version]);

    const seen = await client.sync();
    expect(seen.map((entry) => `${entry.kind}:${entry.id}`)).toEqual([
      `venue:${venue.id}`,
      `category:${category.id}`,
      `event:${created.id}`,
    ]);
    expect(client.records.get(`event:${created.id}`)).toMatchObject({
      title: 'Concert!',
      venue: { venue: 'Grote zaal' },
      categories: [{ name: 'Klassiek' }],
    });
    // A first sync after it shows the same.
    const fresh = new FeedClient(t);
    await fresh.sync();
    expect(fresh.records).toEqual(client.records);
  });

  it('embeds renamed linked records whichever client polls first after the writes', async () => {
    const venue = await post('/venues', { venue: 'Zaal' });
    const tag = await post('/tags', { name: 'jazz' });
    const created = await post('/events', event('Concert', { venue: venue.id, tags: [tag.id] }));
    // Every kind (its page holds every change since), events only, and one change per page.
    const clients = [
      new FeedClient(t),
      new FeedClient(t, undefined, { kinds: 'events' }),
      new FeedClient(t, undefined, { per_page: 1 }),
    ];
    for (const client of clients) await client.sync();

    const rounds: Array<[string, object, FeedClient]> = [
      [`/venues/${venue.id}`, { venue: 'Grote zaal' }, clients[1]],
      [`/tags/${tag.id}`, { name: 'blues' }, clients[2]],
      [`/venues/${venue.id}`, { venue: 'Kleine zaal' }, clients[0]],
    ];
    for (const [path, change, first] of rounds) {
      await post(path, change);
      await post(`/events/${created.id}`, { title: `Concert ${path}` });
      // The first poll after the writes brings the feed's linked records up to date.
      for (const client of [first, ...clients.filter((c) => c !== first)]) {
        await client.sync();
        expect(client.records.get(`event:${created.id}`)).toEqual(
          await read(`/events/${created.id}`),
        );
      }
    }
    expect(clients[1].records.get(`event:${created.id}`)).toMatchObject({
      venue: { venue: 'Kleine zaal' },
      tags: [{ name: 'blues' }],
    });
  });

  it('embeds a linked record changed again after the page’s head as it is now, not as the feed cached it', async () => {
    const venue = await post('/venues', { venue: 'Zaal' });
    const created = await post('/events', event('Concert', { venue: venue.id }));
    await post(`/venues/${venue.id}`, { venue: 'Eerste zaal' });
    // Events only: the page does not hold the venue's changes, so the feed reads them apart.
    const embedded = async () =>
      (await feedPage(t, { kinds: 'events' })).changes.find((c) => c.id === created.id)?.record
        ?.venue;
    expect(await embedded()).toMatchObject({ venue: 'Eerste zaal' });

    await post(`/venues/${venue.id}`, { venue: 'Tweede zaal' });
    // The next poll has read its head when the venue changes again: its one row moves past that head.
    const feed = t.app.get(ChangeLogReader);
    const readChanges = feed.readChanges.bind(feed);
    const writeAfterHead = jest
      .spyOn(feed, 'readChanges')
      .mockImplementationOnce(async (...args) => {
        const read = await readChanges(...args);
        await post(`/venues/${venue.id}`, { venue: 'Derde zaal' });
        return read;
      });
    try {
      expect(await embedded()).toEqual(await read(`/venues/${venue.id}`));
    } finally {
      writeAfterHead.mockRestore();
    }
  });

  it('answers the page after a write as read after it, though the page before started reading it ahead', async () => {
    const [a, b] = [await post('/events', event('A')), await post('/events', event('B'))];
    // Page 1 has more: the service reads page 2 ahead, before the write below.
    const first = await feedPage(t, { per_page: 1 });
    expect(first.changes.map((c) => c.id)).toEqual([a.id]);
    await post(`/events/${a.id}`, { title: 'A!' });
    const seen = [...first.changes];
    for (let page = first; page.has_more;) {
      page = await feedPage(t, { per_page: 1, since: page.next_cursor });
      seen.push(...page.changes);
    }
    expect(seen).toEqual([
      { ...upsert('event', a), record: expect.objectContaining({ id: a.id, title: 'A' }) },
      upsert('event', await read(`/events/${b.id}`)),
      upsert('event', await read(`/events/${a.id}`)),
    ]);
  });

  it('reads pages ahead per caller: another caller with the same cursor gets its own answer', async () => {
    await post('/events', event('Open'));
    const draft = await post('/events', event('Draft'), 'contributor');
    await post('/events', event('Open too'));
    // The editor's page 1 has more: its page 2 (the draft) is read ahead for the editor.
    const first = await feedPage(t, { per_page: 1 }, t.auth.editor);
    expect(first.has_more).toBe(true);
    const [anonymous, editor] = [
      await feedPage(t, { per_page: 1, since: first.next_cursor }),
      await feedPage(t, { per_page: 1, since: first.next_cursor }, t.auth.editor),
    ];
    // The draft was never the anonymous reader's to have: left out of its first sync.
    expect(anonymous.changes).toEqual([]);
    expect(editor.changes).toEqual([upsert('event', await read(`/events/${draft.id}`, 'editor'))]);
  });

  // On SQLite the in-memory database belongs to one app: the second instance needs MySQL.
  itOnMysql('keeps cursors valid on another instance of the same database', async () => {
    await post('/venues', { venue: 'Paradiso' });
    const { next_cursor: cursor } = await feedPage(t);
    await post('/venues', { venue: 'Melkweg' });
    // A second app on the same database, booted like the first (without emptying it).
    const { AppModule } = await import('../../src/app.module');
    const { APP_OPTIONS, configureApp } = await import('../../src/app.setup');
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const other = moduleRef.createNestApplication(APP_OPTIONS);
    configureApp(other);
    await other.init();
    try {
      const response = await request(other.getHttpServer())
        .get(`${API}/changes`)
        .query({ since: cursor })
        .expect(200);
      expect(response.body.changes.map((c: FeedEntry) => `${c.kind}:${c.id}`)).toEqual(['venue:2']);
    } finally {
      await other.close();
    }
  });
});
