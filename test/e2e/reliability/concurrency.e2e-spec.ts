import { dayAt, eventRequests } from '../helpers/events';
import { API, createTestApp, TestApp } from '../helpers/test-app';

/*
 * Concurrent writes (issue: reliability): same-title creates get distinct
 * slugs, concurrent updates of different fields of one event both survive
 * (the row is locked and re-read inside the transaction), a new term named by
 * many concurrent event creates is created once, and a burst of mixed writes
 * on shared rows never ends in a 500 (unique races and deadlocks are retried
 * by writeTransaction) and leaves the term counts right.
 */
const N = 50;

describe('concurrency', () => {
  let t: TestApp;
  let api: ReturnType<typeof eventRequests>;

  beforeAll(async () => {
    t = await createTestApp();
    api = eventRequests(t);
  });
  beforeEach(() => t.reset());
  afterAll(() => t?.close());

  const event = (fields: object = {}) => ({
    title: 'Gelijk',
    start_date: dayAt(10, '10:00:00'),
    end_date: dayAt(10, '12:00:00'),
    ...fields,
  });

  /** The slugs the API gives N records of one title: the first bare, then -2, -3, … */
  const expectedSlugs = (base: string) =>
    [base, ...Array.from({ length: N - 1 }, (_, i) => `${base}-${i + 2}`)].sort();

  describe(`${N} concurrent creates with the same title`, () => {
    it('events: all 201, distinct slugs', async () => {
      const results = await Promise.all(Array.from({ length: N }, () => api.create(event())));
      expect(results.map((res) => res.status)).toEqual(Array(N).fill(201));
      expect(new Set(results.map((res) => res.body.id)).size).toBe(N);
      expect(results.map((res) => res.body.slug as string).sort()).toEqual(expectedSlugs('gelijk'));
      expect(results.every((res) => res.body.title === 'Gelijk')).toBe(true);
      const list = await api.get(`/events?per_page=50`).expect(200);
      expect(list.body.total).toBe(N);
    });

    it('venues: all 201, distinct slugs', async () => {
      const results = await Promise.all(
        Array.from({ length: N }, () => api.createVenue({ venue: 'Zaal Gelijk' })),
      );
      expect(results.map((res) => res.status)).toEqual(Array(N).fill(201));
      expect(new Set(results.map((res) => res.body.id)).size).toBe(N);
      expect(results.map((res) => res.body.slug as string).sort()).toEqual(
        expectedSlugs('zaal-gelijk'),
      );
    });

    it('organizers: all 201, distinct slugs', async () => {
      const results = await Promise.all(
        Array.from({ length: N }, () => api.createOrganizer({ organizer: 'Org Gelijk' })),
      );
      expect(results.map((res) => res.status)).toEqual(Array(N).fill(201));
      expect(new Set(results.map((res) => res.body.id)).size).toBe(N);
      expect(results.map((res) => res.body.slug as string).sort()).toEqual(
        expectedSlugs('org-gelijk'),
      );
    });
  });

  it('keeps both of two concurrent updates of different fields of one event (10 rounds)', async () => {
    const created = await api.create(event({ title: 'Begin' })).expect(201);
    const id = created.body.id as number;
    for (let i = 1; i <= 10; i++) {
      const featured = i % 2 === 0;
      const [one, two] = await Promise.all([
        api.update(id, { title: `Titel ${i}` }),
        api.update(id, { cost: `${i}$`, featured }),
      ]);
      expect([one.status, two.status]).toEqual([200, 200]);
      const { body } = await api.get(`/events/${id}`).expect(200);
      expect({
        title: body.title,
        cost: body.cost,
        values: body.cost_details.values,
        featured: body.featured,
      }).toEqual({ title: `Titel ${i}`, cost: `${i}$`, values: [i], featured });
    }
  });

  it('creates a new category and tag named by 20 concurrent event creates exactly once', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.create(
          event({ title: `Met term ${i}`, categories: ['Nieuw Genre'], tags: 'Fris' }),
          'editor',
        ),
      ),
    );
    expect(results.map((res) => res.status)).toEqual(Array(20).fill(201));
    const categoryIds = new Set(results.map((res) => res.body.categories[0]?.id));
    const tagIds = new Set(results.map((res) => res.body.tags[0]?.id));
    expect([categoryIds.size, tagIds.size]).toEqual([1, 1]);

    const categories = await api.get('/categories?hide_empty=false&per_page=50').expect(200);
    expect(
      categories.body.categories.map((c: { name: string; count: number }) => [c.name, c.count]),
    ).toEqual([['Nieuw Genre', 20]]);
    const tags = await api.get('/tags?hide_empty=false&per_page=50').expect(200);
    expect(tags.body.tags.map((c: { name: string; count: number }) => [c.name, c.count])).toEqual([
      ['Fris', 20],
    ]);
    expect([...categoryIds]).toEqual([categories.body.categories[0].id]);
    expect([...tagIds]).toEqual([tags.body.tags[0].id]);
  });

  it('answers a burst of mixed writes on shared rows without a 500 and keeps term counts right', async () => {
    const admin = 'administrator' as const;
    const term = async (collection: string, name: string) =>
      (
        await t
          .http()
          .post(`${API}/${collection}`)
          .set('Authorization', t.auth.editor)
          .send({ name })
          .expect(201)
      ).body.id as number;
    const [c1, c2] = [await term('categories', 'Een'), await term('categories', 'Twee')];
    const [t1, t2] = [await term('tags', 'Rood'), await term('tags', 'Blauw')];
    const venue = (await api.createVenue({ venue: 'Gedeeld' }).expect(201)).body.id as number;
    const organizer = (await api.createOrganizer({ organizer: 'Gedeeld' }).expect(201)).body
      .id as number;

    for (let round = 1; round <= 3; round++) {
      const ids: number[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await api
          .create(
            event({ title: `Ronde ${round} ${i}`, categories: [c1], tags: [t1], venue, organizer }),
            admin,
          )
          .expect(201);
        ids.push(res.body.id as number);
      }
      const [e1, e2, e3, e4, e5, e6, e7, e8] = ids;
      const writes = [
        api.update(e1, { categories: [c1, c2], tags: [t2] }, admin),
        api.update(e1, { featured: true }, admin),
        api.update(e2, { categories: [c2], title: `Nieuw ${round}` }, admin),
        api.update(e2, { tags: [t1, t2] }, admin),
        api.remove(`/events/${e3}`, admin),
        api.remove(`/events/${e4}`, admin),
        api.remove(`/events/${e5}?force=true`, admin),
        api.update(e6, { status: 'draft' }, admin),
        api.update(e7, { categories: '', tags: [] }, admin),
        api.update(e8, { venue: 0, organizer: [] }, admin),
        api.create(event({ title: `Extra ${round}`, categories: [c1, c2], tags: [t1] }), admin),
        t
          .http()
          .patch(`${API}/categories/${c1}`)
          .set('Authorization', t.auth.editor)
          .send({ description: `Ronde ${round}` }),
        t
          .http()
          .patch(`${API}/tags/${t2}`)
          .set('Authorization', t.auth.editor)
          .send({ name: `Blauw ${round}` }),
        t
          .http()
          .patch(`${API}/venues/${venue}`)
          .set('Authorization', t.auth[admin])
          .send({ city: `Stad ${round}` }),
        t
          .http()
          .patch(`${API}/organizers/${organizer}`)
          .set('Authorization', t.auth[admin])
          .send({ phone: `0${round}` }),
      ];
      const statuses = (await Promise.all(writes)).map((res) => res.status);
      expect({ round, statuses }).toEqual({
        round,
        statuses: [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201, 200, 200, 200, 200],
      });
    }

    // Published events per round (e3, e4 trashed, e5 gone, e6 draft, e7 cleared):
    // c1: e1, e8, Extra; c2: e1, e2, Extra; t1: e2, e8, Extra; t2: e1, e2.
    const counts = async (collection: string) => {
      const res = await api.get(`/${collection}?hide_empty=false&orderby=id`).expect(200);
      return res.body[collection].map((term: { id: number; count: number }) => [
        term.id,
        term.count,
      ]);
    };
    expect(await counts('categories')).toEqual([
      [c1, 9],
      [c2, 9],
    ]);
    expect(await counts('tags')).toEqual([
      [t1, 9],
      [t2, 6],
    ]);
    const venueRecord = await api.get(`/venues/${venue}`).expect(200);
    expect(venueRecord.body.city).toBe('Stad 3');
    const tag = await api.get(`/tags/${t2}`).expect(200);
    expect(tag.body.name).toBe('Blauw 3');
  });
});
