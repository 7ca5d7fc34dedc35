import { eventRequests } from './helpers/events';
import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/*
 * Defects found when the service was tried as a new user would (issue 11):
 * each test pins the documented behaviour (docs/api.md).
 */

const PARTY = {
  title: 'Besloten feest',
  start_date: '2030-06-01 20:00:00',
  end_date: '2030-06-01 23:00:00',
  password: 'geheim',
};

describe('first use', () => {
  let t: TestApp;
  let api: ReturnType<typeof eventRequests>;
  beforeAll(async () => {
    t = await createTestApp({ MAX_PER_PAGE: '2' });
    // One port for the whole suite, so URLs in records read at different times compare equal.
    await t.app.listen(0, '127.0.0.1');
    api = eventRequests(t);
  });
  beforeEach(() => t.reset());
  afterAll(() => t?.close());

  it('reads a password-protected event by slug with the right password', async () => {
    const created = await api.create(PARTY).expect(201);
    const byId = await api.get('/events/1?password=geheim').expect(200);
    const bySlug = await api.get('/events/by-slug/besloten-feest?password=geheim').expect(200);
    expect(bySlug.body).toEqual(byId.body);
    expect(bySlug.body).toMatchObject({ id: created.body.id, password_protected: true });
    expect(
      (await api.get('/events/by-slug/besloten-feest?password=fout').expect(403)).body,
    ).toEqual(errorBody('event-password-protected', 403));
  });

  it('never repeats `password` in rest_url, next_rest_url, previous_rest_url or Link', async () => {
    await api.create(PARTY).expect(201);
    await api
      .create({ ...PARTY, title: 'Tweede feest', description: 'Alleen genodigden.' })
      .expect(201);
    await api.create({ ...PARTY, title: 'Derde feest' }).expect(201);
    const res = await api
      .get('/events?password=geheim&per_page=1&page=2&start_date=2030-06-01&end_date=2030-06-30')
      .expect(200);
    const origin = `http://${res.request.url.split('/')[2]}`;
    const list = `${origin}${API}/events?per_page=1&start_date=2030-06-01&end_date=2030-06-30`;
    expect(res.body).toMatchObject({
      rest_url: `${list}&page=2`,
      next_rest_url: `${list}&page=3`,
      previous_rest_url: list,
      total: 3,
    });
    expect(res.headers.link).toBe(`<${list}&page=3>; rel="next", <${list}>; rel="prev"`);
    // The password still unlocks the items of the page.
    expect(res.body.events[0]).toMatchObject({
      title: 'Tweede feest',
      description: 'Alleen genodigden.',
    });
    expect(JSON.stringify(res.body)).not.toContain('geheim');
  });

  it('gives event 1, venue 1 and organizer 1 different global_ids in the same format', async () => {
    const event = await api.create(PARTY).expect(201);
    const venue = await api.createVenue({ venue: 'Zaal' }).expect(201);
    const organizer = await api.createOrganizer({ organizer: 'Stichting' }).expect(201);
    expect([event.body.id, venue.body.id, organizer.body.id]).toEqual([1, 1, 1]);
    expect([event.body, venue.body, organizer.body].map((r) => r.global_id)).toEqual([
      'calendar.test?id=1',
      'calendar.test?id=2',
      'calendar.test?id=3',
    ]);
    const second = await api.createVenue({ venue: 'Tweede zaal' }).expect(201);
    expect(second.body).toMatchObject({
      id: 2,
      global_id: 'calendar.test?id=5',
      global_id_lineage: ['calendar.test?id=5'],
    });
  });

  it('keeps a given slug of exactly 200 characters, and suffixes a taken one within 200', async () => {
    const slug = `${'a'.repeat(99)}-${'b'.repeat(100)}`;
    expect(slug).toHaveLength(200);
    const first = await api.create({ ...PARTY, slug }).expect(201);
    expect(first.body.slug).toBe(slug);
    const venue = await api.createVenue({ venue: 'Zaal', slug }).expect(201);
    expect(venue.body.slug).toBe(slug);
    const second = await api.create({ ...PARTY, slug }).expect(201);
    expect(second.body.slug).toBe(`${'a'.repeat(99)}-${'b'.repeat(92)}-2`);
    await api.get(`/events/by-slug/${slug}?password=geheim`).expect(200);
  });

  it.each(['events', 'venues', 'organizers', 'categories', 'tags'])(
    'answers a path ID beyond 2^31−1 on /%s as not found, never as no route',
    async (collection) => {
      const kind = {
        events: 'event',
        venues: 'venue',
        organizers: 'organizer',
        categories: 'category',
        tags: 'tag',
      }[collection];
      for (const id of ['2147483648', '999999999999999999999', '1'.repeat(400)]) {
        expect((await api.get(`/${collection}/${id}`).expect(404)).body).toEqual(
          errorBody(`rest-${kind}-not-found`, 404),
        );
      }
    },
  );

  it('reads path IDs as digits only: 1e0, 0x1, 1.0 and +1 are no routes', async () => {
    await api.create({ ...PARTY, password: '' }).expect(201);
    await api.get('/events/1').expect(200);
    for (const id of ['1e0', '0x1', '1.0', '+1', ' 1']) {
      expect((await api.get(`/events/${encodeURIComponent(id)}`).expect(404)).body).toEqual(
        errorBody('rest_no_route', 404),
      );
    }
  });

  it.each(['3', '2147483648', '99999999999999999999999'])(
    'caps per_page=%s at MAX_PER_PAGE (2 here)',
    async (perPage) => {
      for (const venue of ['A', 'B', 'C']) await api.createVenue({ venue }).expect(201);
      const res = await t.http().get(`${API}/venues?per_page=${perPage}`).expect(200);
      expect(res.body).toMatchObject({ total: 3, total_pages: 2 });
      expect(res.body.venues.map((v: { venue: string }) => v.venue)).toHaveLength(2);
      expect(res.body.rest_url).toContain(`per_page=${perPage}&page=1`);
    },
  );

  it('still refuses per_page 0, negative or not a number', async () => {
    for (const perPage of ['0', '-1', 'abc', '1.5']) {
      const res = await api.get(`/events?per_page=${perPage}`).expect(400);
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, { per_page: expect.any(String) }),
      );
    }
  });
});
