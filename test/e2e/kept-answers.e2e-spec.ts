import { EventsService } from '../../src/events/events.service';
import { OrganizersService } from '../../src/organizers/organizers.service';
import { TermsService } from '../../src/terms/terms.service';
import { VenuesService } from '../../src/venues/venues.service';
import { dayAt } from './helpers/events';
import { API, createTestApp, TestApp, UserName } from './helpers/test-app';

/*
 * Single-record reads keep the bytes of their anonymous 200 answers with the
 * ETag (docs/api.md §11, ReadValidatorInterceptor): a repeated read while the
 * data version holds is sent without running the handler, byte for byte the
 * answer the handler gave. Any write retires it; signed-in callers always get
 * a fresh read.
 */
describe('kept answers of single-record reads', () => {
  let t: TestApp;
  const handlers: Record<string, jest.SpyInstance> = {};

  beforeAll(async () => {
    t = await createTestApp();
    // One port for every request: the host is part of the key.
    await t.app.listen(0, '127.0.0.1');
    handlers.event = jest.spyOn(t.app.get(EventsService), 'get');
    handlers.venue = jest.spyOn(t.app.get(VenuesService), 'get');
    handlers.organizer = jest.spyOn(t.app.get(OrganizersService), 'get');
    handlers.term = jest.spyOn(t.app.get(TermsService), 'get');
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.reset();
    jest.clearAllMocks();
  });

  const get = (path: string, user?: UserName) => {
    const request = t.http().get(`${API}${path}`);
    return user ? request.set('Authorization', t.auth[user]) : request;
  };
  const write = async (method: 'post' | 'patch', path: string, body: object) => {
    const request =
      method === 'post' ? t.http().post(`${API}${path}`) : t.http().patch(`${API}${path}`);
    const response = await request
      .set('Authorization', t.auth.editor)
      .send(body)
      .expect(method === 'post' ? 201 : 200);
    return response.body as { id: number; slug: string };
  };

  it.each([
    ['event', '/events'],
    ['venue', '/venues'],
    ['organizer', '/organizers'],
    ['term', '/categories'],
  ])(
    'a repeated anonymous read of a %s is the same bytes and tag, without the handler',
    async (kind, path) => {
      const body =
        path === '/events'
          ? {
              title: 'Concert',
              start_date: dayAt(3, '20:00:00'),
              end_date: dayAt(3, '22:00:00'),
              status: 'publish',
            }
          : path === '/venues'
            ? { venue: 'Paradiso', status: 'publish' }
            : path === '/organizers'
              ? { organizer: 'Stichting Jazz', status: 'publish' }
              : { name: 'Jazz' };
      const { id } = await write('post', path, body);
      const first = await get(`${path}/${id}`).expect(200);
      const second = await get(`${path}/${id}`).expect(200);
      expect(second.text).toBe(first.text);
      expect(second.headers).toMatchObject({
        etag: first.headers.etag,
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-cache, public',
        'content-length': first.headers['content-length'],
      });
      expect(handlers[kind]).toHaveBeenCalledTimes(1);
      // HEAD and a matching If-None-Match come from the same kept answer.
      const head = await t.http().head(`${API}${path}/${id}`).expect(200);
      expect(head.headers.etag).toBe(first.headers.etag);
      await get(`${path}/${id}`).set('If-None-Match', first.headers.etag).expect(304);
      expect(handlers[kind]).toHaveBeenCalledTimes(1);
    },
  );

  it('by slug too, and a write anywhere (a venue the event shows) retires the kept answer', async () => {
    const venue = await write('post', '/venues', { venue: 'Paradiso', status: 'publish' });
    const event = await write('post', '/events', {
      title: 'Concert',
      start_date: dayAt(3, '20:00:00'),
      end_date: dayAt(3, '22:00:00'),
      status: 'publish',
      venue: venue.id,
    });
    const first = await get(`/events/by-slug/${event.slug}`).expect(200);
    await get(`/events/by-slug/${event.slug}`).expect(200);
    expect(handlers.event).toHaveBeenCalledTimes(1);

    await write('patch', `/venues/${venue.id}`, { venue: 'Paradiso Noord' });
    const after = await get(`/events/by-slug/${event.slug}`).expect(200);
    expect(handlers.event).toHaveBeenCalledTimes(2);
    expect(after.body.venue.venue).toBe('Paradiso Noord');
    expect(after.headers.etag).not.toBe(first.headers.etag);
  });

  it('never serves a kept answer to a signed-in caller, nor keeps theirs for anonymous callers', async () => {
    const draft = await write('post', '/events', {
      title: 'Concept',
      start_date: dayAt(3, '20:00:00'),
      end_date: dayAt(3, '22:00:00'),
      status: 'draft',
    });
    await get(`/events/${draft.id}`, 'editor').expect(200);
    await get(`/events/${draft.id}`, 'editor').expect(200);
    expect(handlers.event).toHaveBeenCalledTimes(2);
    // The editor's 200 was not kept for anyone else: anonymous callers are still refused.
    await get(`/events/${draft.id}`).expect(403);
    await get(`/events/${draft.id}`).expect(403);
    expect(handlers.event).toHaveBeenCalledTimes(4);
  });

  it('keeps an answer per language', async () => {
    const { id } = await write('post', '/categories', { name: 'Jazz' });
    await write('patch', `/categories/${id}?language=en`, { name: 'Jazz (en)' });
    const nl = await get(`/categories/${id}?language=nl`).expect(200);
    const en = await get(`/categories/${id}?language=en`).expect(200);
    const enAgain = await get(`/categories/${id}?language=en`).expect(200);
    expect([nl.body.name, en.body.name, enAgain.body.name]).toEqual([
      'Jazz',
      'Jazz (en)',
      'Jazz (en)',
    ]);
    expect(handlers.term).toHaveBeenCalledTimes(2);
  });
});
