import type { Response } from 'supertest';
import { ChangesRetention } from '../../src/changes/changes-retention.service';
import { ChangesService } from '../../src/changes/changes.service';
import { ReadValidatorCache } from '../../src/common/cache/read-validator-cache.service';
import { EventsService } from '../../src/events/events.service';
import { IcalFeedService } from '../../src/ical/ical-feed.service';
import { VenuesService } from '../../src/venues/venues.service';
import { dayAt } from './helpers/events';
import { API, createTestApp, errorBody, TestApp, UserName } from './helpers/test-app';

/*
 * 304 without the handler's work (docs/api.md §11, ReadValidatorInterceptor):
 * a matching If-None-Match is answered from the ETag remembered for the same
 * request, caller, language, host and site day while the data version holds.
 * It must never answer 304 where a full read would show something else.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** The headers a 304 carries for its 200 (lists included). */
const KEPT = ['etag', 'cache-control', 'vary', 'x-total', 'x-totalpages', 'link'];

describe('read validators (304 without running the handler)', () => {
  let t: TestApp;
  let eventsList: jest.SpyInstance;
  let eventsGet: jest.SpyInstance;
  let venuesList: jest.SpyInstance;
  let feedPage: jest.SpyInstance;
  let icalFeed: jest.SpyInstance;
  let validators: ReadValidatorCache;
  let validatorsKept: jest.SpyInstance;

  beforeAll(async () => {
    t = await createTestApp();
    // One port for every request: the host is part of what a validator is kept for.
    await t.app.listen(0, '127.0.0.1');
    validators = t.app.get(ReadValidatorCache);
    validatorsKept = jest.spyOn(validators, 'set');
    eventsList = jest.spyOn(t.app.get(EventsService), 'list');
    eventsGet = jest.spyOn(t.app.get(EventsService), 'get');
    venuesList = jest.spyOn(t.app.get(VenuesService), 'list');
    feedPage = jest.spyOn(t.app.get(ChangesService), 'page');
    icalFeed = jest.spyOn(t.app.get(IcalFeedService), 'prepareFeed');
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    validators.now = Date.now;
    jest.clearAllMocks();
  });

  const get = (path: string, user?: UserName, headers: Record<string, string> = {}) => {
    const request = t.http().get(`${API}${path}`).set(headers);
    return user ? request.set('Authorization', t.auth[user]) : request;
  };
  const post = async (path: string, body: object) =>
    (
      await t
        .http()
        .post(`${API}${path}`)
        .set('Authorization', t.auth.editor)
        .send(body)
        .expect(201)
    ).body as { id: number; slug: string };
  const event = (title: string, extra: object = {}) =>
    post('/events', {
      title,
      start_date: dayAt(3, '20:00:00'),
      end_date: dayAt(3, '22:00:00'),
      status: 'publish',
      ...extra,
    });
  const kept = (response: Response) =>
    Object.fromEntries(KEPT.map((name) => [name, response.headers[name]]));

  it('answers a repeated list read with 304 and the 200’s list headers, without listing again', async () => {
    await event('Eerste');
    await event('Tweede');
    const first = await get('/events?per_page=1').expect(200);
    expect(first.headers.link).toContain('rel="next"');
    expect(eventsList).toHaveBeenCalledTimes(1);

    const again = await get('/events?per_page=1', undefined, {
      'If-None-Match': first.headers.etag as string,
    }).expect(304);
    expect(again.text).toBe('');
    expect(kept(again)).toEqual(kept(first));
    expect(eventsList).toHaveBeenCalledTimes(1);

    // HEAD is a GET without body: the same validator holds.
    await t
      .http()
      .head(`${API}/events?per_page=1`)
      .set('If-None-Match', first.headers.etag as string)
      .expect(304);
    expect(eventsList).toHaveBeenCalledTimes(1);
  });

  it('runs the handler when the tag does not match, or when none is sent', async () => {
    await event('Concert');
    const first = await get('/events').expect(200);
    await get('/events', undefined, { 'If-None-Match': '"other"' }).expect(200);
    await get('/events').expect(200);
    expect(eventsList).toHaveBeenCalledTimes(3);
    // A list of tags (weak or strong) that holds the current one matches.
    await get('/events', undefined, {
      'If-None-Match': `"other", W/${first.headers.etag as string}`,
    }).expect(304);
    expect(eventsList).toHaveBeenCalledTimes(3);
  });

  it('shows every write at once: the old tag gets a 200 with the new bytes', async () => {
    const venue = await post('/venues', { venue: 'Paradiso', status: 'publish' });
    const ev = await event('Concert', { venue: venue.id });
    const list = await get('/events').expect(200);
    const single = await get(`/events/${ev.id}`).expect(200);
    const venues = await get('/venues').expect(200);

    // A write to a linked record changes what the event and the lists show.
    await t
      .http()
      .patch(`${API}/venues/${venue.id}`)
      .set('Authorization', t.auth.editor)
      .send({ venue: 'Melkweg' })
      .expect(200);

    for (const [path, before] of [
      ['/events', list],
      [`/events/${ev.id}`, single],
      ['/venues', venues],
    ] as const) {
      const after = await get(path, undefined, {
        'If-None-Match': before.headers.etag as string,
      }).expect(200);
      expect([path, after.text]).toEqual([path, expect.stringContaining('Melkweg')]);
      expect(after.headers.etag).not.toBe(before.headers.etag);
    }
  });

  it('bumps the data version once per tracked write, with its data: the old tag then reads the write', async () => {
    const version = async () =>
      Number(
        (
          (await t.dataSource.query('SELECT version FROM data_version WHERE id = 1')) as Array<{
            version: number | string;
          }>
        )[0].version,
      );
    const write = (method: 'post' | 'patch' | 'delete', path: string, body?: object) =>
      t.http()[method](`${API}${path}`).set('Authorization', t.auth.editor).send(body);
    /** The write moves the version by one; a read with the tag from before it shows `expected`. */
    const bumpsOnce = async (
      read: string,
      send: () => Promise<Response>,
      expected: (text: string) => boolean,
    ) => {
      const before = await get(read).expect(200);
      const at = await version();
      await send();
      expect(await version()).toBe(at + 1);
      const after = await get(read, undefined, {
        'If-None-Match': before.headers.etag as string,
      }).expect(200);
      expect([read, expected(after.text)]).toEqual([read, true]);
    };

    let venue = 0;
    await bumpsOnce(
      '/venues',
      async () => {
        const res = await write('post', '/venues', { venue: 'Paradiso', status: 'publish' }).expect(
          201,
        );
        venue = (res.body as { id: number }).id;
        return res;
      },
      (text) => text.includes('Paradiso'),
    );
    await bumpsOnce(
      '/venues',
      () => write('patch', `/venues/${venue}`, { venue: 'Melkweg' }).expect(200),
      (text) => text.includes('Melkweg') && !text.includes('Paradiso'),
    );
    let ev = 0;
    await bumpsOnce(
      '/events',
      async () => {
        const res = await write('post', '/events', {
          title: 'Concert',
          start_date: dayAt(3, '20:00:00'),
          end_date: dayAt(3, '22:00:00'),
          status: 'publish',
          venue,
        }).expect(201);
        ev = (res.body as { id: number }).id;
        return res;
      },
      (text) => text.includes('Concert'),
    );
    await bumpsOnce(
      '/events',
      () => write('patch', `/events/${ev}`, { title: 'Slotconcert' }).expect(200),
      (text) => text.includes('Slotconcert'),
    );
    await bumpsOnce(
      '/events',
      () => write('delete', `/events/${ev}`).expect(200),
      (text) => !text.includes('Slotconcert'),
    );
    await bumpsOnce(
      '/venues',
      () => write('delete', `/venues/${venue}?force=true`).expect(200),
      (text) => !text.includes('Melkweg'),
    );

    // Under an Idempotency-Key too (its key's own transactions bump nothing); its replay writes nothing.
    const keyed = () =>
      write('post', '/venues', { venue: 'Tolhuistuin', status: 'publish' }).set(
        'Idempotency-Key',
        'versioned-venue',
      );
    await bumpsOnce(
      '/venues',
      () => keyed().expect(201),
      (text) => text.includes('Tolhuistuin'),
    );
    const at = await version();
    await keyed().expect(201).expect('Idempotency-Replayed', 'true');
    // A write that fails validation changes nothing, and bumps nothing.
    await write('post', '/events', { title: '' }).expect(400);
    expect(await version()).toBe(at);
  });

  it('keeps callers apart: an anonymous tag is no 304 for an editor who sees a draft', async () => {
    await event('Openbaar');
    await event('Concept', { status: 'draft' });
    const anonymous = await get('/events').expect(200);
    const editor = await get('/events', 'editor', {
      'If-None-Match': anonymous.headers.etag as string,
    }).expect(200);
    expect(editor.text).toContain('Concept');
    // And the other way round.
    await get('/events', undefined, { 'If-None-Match': editor.headers.etag as string }).expect(200);
  });

  it('keeps languages apart', async () => {
    await event('Concert');
    const dutch = await get('/events?language=nl').expect(200);
    const english = await get('/events?language=en').expect(200);
    expect(english.headers.etag).not.toBe(dutch.headers.etag);
    await get('/events', undefined, {
      'Accept-Language': 'en',
      'If-None-Match': dutch.headers.etag as string,
    }).expect(200);
  });

  it('reads again once the site day has changed (the default window of /events moves)', async () => {
    await event('Concert');
    // Ten seconds before midnight in SITE_TIMEZONE (UTC here), then ten seconds after it.
    const midnight = Math.ceil(Date.now() / DAY_MS) * DAY_MS;
    validators.now = () => midnight - 10_000;
    const first = await get('/events').expect(200);
    await get('/events', undefined, { 'If-None-Match': first.headers.etag as string }).expect(304);
    expect(eventsList).toHaveBeenCalledTimes(1);

    validators.now = () => midnight + 10_000;
    const nextDay = await get('/events', undefined, {
      'If-None-Match': first.headers.etag as string,
    });
    // The same bytes still (the event is days ahead), but decided by a full read.
    expect(nextDay.status).toBe(304);
    expect(eventsList).toHaveBeenCalledTimes(2);
  });

  it('never keeps a validator for only_with_upcoming (it moves by the second)', async () => {
    const venue = await post('/venues', { venue: 'Paradiso', status: 'publish' });
    await event('Concert', { venue: venue.id });
    const first = await get('/venues?only_with_upcoming=true').expect(200);
    await get('/venues?only_with_upcoming=true', undefined, {
      'If-None-Match': first.headers.etag as string,
    }).expect(304);
    expect(venuesList).toHaveBeenCalledTimes(2);
  });

  it('answers an unchanged feed poll with 304 without reading the feed; a write or a purge of old deletions reads again', async () => {
    const venue = await post('/venues', { venue: 'Paradiso', status: 'publish' });
    const synced = await get('/changes').expect(200);
    await t
      .http()
      .delete(`${API}/venues/${venue.id}?force=true`)
      .set('Authorization', t.auth.editor)
      .expect(200);
    // A client that synced before the deletion is given the delete.
    const older = `/changes?since=${(synced.body as { next_cursor: string }).next_cursor}`;
    const poll = await get(older).expect(200);
    expect(poll.text).toContain('"type":"delete"');
    const cursor = (poll.body as { next_cursor: string }).next_cursor;
    const polled = await get(`/changes?since=${cursor}`).expect(200);
    expect(polled.body).toMatchObject({ changes: [], has_more: false });
    expect(feedPage).toHaveBeenCalledTimes(3);

    const unchanged = { 'If-None-Match': polled.headers.etag as string };
    const again = await get(`/changes?since=${cursor}`, undefined, unchanged).expect(304);
    expect(kept(again)).toEqual(kept(polled));
    await get(older, undefined, { 'If-None-Match': poll.headers.etag as string }).expect(304);
    expect(feedPage).toHaveBeenCalledTimes(3);
    // Another caller is read for (what a feed shows depends on who asks); here it is the same empty page.
    await get(`/changes?since=${cursor}`, 'editor', unchanged).expect(304);
    expect(feedPage).toHaveBeenCalledTimes(4);

    // A write: the same poll now holds it.
    await post('/venues', { venue: 'Melkweg', status: 'publish' });
    const moved = await get(`/changes?since=${cursor}`, undefined, unchanged).expect(200);
    expect(moved.text).toContain('Melkweg');

    // Purging the deletion (older than the retention) answers the older cursor 410, not 304.
    const afterWrite = await get(older).expect(200);
    const retention = t.app.get(ChangesRetention);
    expect(await retention.purgeExpired(Math.floor(Date.now() / 1000) + 31 * 86_400)).toBe(1);
    await get(older, undefined, { 'If-None-Match': afterWrite.headers.etag as string }).expect(410);
  });

  it('answers an unchanged iCalendar feed with the 304 its handler gives, without the handler; a write reads again', async () => {
    await event('Concert');
    const feed = '/events.ics?language=en';
    const first = await get(feed).expect(200);
    expect(first.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const unchanged = { 'If-None-Match': first.headers.etag as string };
    expect(icalFeed).toHaveBeenCalledTimes(1);

    const cached = await get(feed, undefined, unchanged).expect(304);
    await t.http().head(`${API}${feed}`).set(unchanged).expect(304);
    expect(icalFeed).toHaveBeenCalledTimes(1);
    expect(cached.text).toBe('');
    expect(kept(cached)).toEqual(kept(first));

    // The validator forgotten (a minute on), the handler decides the 304: the same answer.
    validators.now = () => Date.now() + 61_000;
    const decided = await get(feed, undefined, unchanged).expect(304);
    expect(icalFeed).toHaveBeenCalledTimes(2);
    const headers = (response: Response) => {
      const { date: _date, 'x-request-id': _id, ...rest } = response.headers;
      return rest;
    };
    expect(headers(cached)).toEqual(headers(decided));

    // Other callers, languages and filters are other feeds.
    await get(feed, 'editor', unchanged).expect(200);
    await get('/events.ics?language=nl', undefined, unchanged).expect(200);
    await get(`${feed}&featured=true`, undefined, unchanged).expect(200);
    expect(icalFeed).toHaveBeenCalledTimes(5);

    // A write: the old tag gets the new bytes.
    await event('Tweede concert');
    const after = await get(feed, undefined, unchanged).expect(200);
    expect(after.text).toContain('SUMMARY:Tweede concert');
    expect(after.headers.etag).not.toBe(first.headers.etag);
    expect(icalFeed).toHaveBeenCalledTimes(6);
  });

  it('keeps no validator for a read with a password (a secret as a key, an entry per guess), and still answers it', async () => {
    const ev = await event('Besloten', { password: 'sesam' });
    const open = await get(`/events/${ev.id}?password=sesam`).expect(200);
    expect(open.body).toMatchObject({ id: ev.id, password_protected: true });
    // The same read with its tag: the handler decides the 304, not the cache.
    await get(`/events/${ev.id}?password=sesam`, undefined, {
      'If-None-Match': open.headers.etag as string,
    }).expect(304);
    expect(eventsGet).toHaveBeenCalledTimes(2);
    expect((await get(`/events/${ev.id}?password=fout`).expect(403)).body).toEqual(
      errorBody('event-password-protected', 403),
    );
    for (const guess of ['fout', 'sesam']) await get(`/events?password=${guess}`).expect(200);
    expect(validatorsKept).not.toHaveBeenCalled();

    // Without a password the list's validator is kept, as before.
    await get('/events').expect(200);
    expect(validatorsKept).toHaveBeenCalledTimes(1);
  });

  it('forgets a validator after a minute even if no write was seen (a failed version bump)', async () => {
    const ev = await event('Concert');
    const first = await get(`/events/${ev.id}`).expect(200);
    await get(`/events/${ev.id}`, undefined, {
      'If-None-Match': first.headers.etag as string,
    }).expect(304);
    expect(eventsGet).toHaveBeenCalledTimes(1);
    validators.now = () => Date.now() + 61_000;
    await get(`/events/${ev.id}`, undefined, {
      'If-None-Match': first.headers.etag as string,
    }).expect(304);
    expect(eventsGet).toHaveBeenCalledTimes(2);
  });

  it('does not answer an error from a validator: a trashed record is 410 for the old tag', async () => {
    const ev = await event('Concert');
    const first = await get(`/events/${ev.id}`).expect(200);
    await t.http().delete(`${API}/events/${ev.id}`).set('Authorization', t.auth.editor).expect(200);
    const gone = await get(`/events/${ev.id}`, undefined, {
      'If-None-Match': first.headers.etag as string,
    });
    expect(gone.status).not.toBe(304);
    expect(gone.status).toBeGreaterThanOrEqual(400);
  });
});
