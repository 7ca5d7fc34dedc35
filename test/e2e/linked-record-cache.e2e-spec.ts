import { DateTime } from 'luxon';
import { API, createTestApp, TestApp } from './helpers/test-app';

/*
 * The venue, organizer and term records that events embed are mapped once per
 * instance, language and host, and re-used while the data version holds
 * (EventRecordsService.sharedLinks). Every acknowledged write, on any
 * instance, must show in the next read; what one caller may not see stays hidden.
 */

const soon = DateTime.utc().plus({ days: 3 }).startOf('hour');
const when = {
  start_date: soon.toFormat('yyyy-MM-dd HH:mm:ss'),
  end_date: soon.plus({ hours: 2 }).toFormat('yyyy-MM-dd HH:mm:ss'),
};

interface Embedded {
  venue: { id: number; venue: string; rest_url: string } | [];
  organizer: Array<{ id: number; organizer: string }>;
  categories: Array<{ id: number; name: string; count: number }>;
}

async function listed(t: TestApp, id: number, headers: Record<string, string> = {}) {
  const res = await t.http().get(`${API}/events`).set(headers).expect(200);
  const found = (res.body.events as Array<Embedded & { id: number }>).find((e) => e.id === id);
  if (!found) throw new Error(`event ${id} is not listed`);
  return found;
}

async function single(t: TestApp, id: number, headers: Record<string, string> = {}) {
  return (await t.http().get(`${API}/events/${id}`).set(headers).expect(200)).body as Embedded;
}

async function seed(t: TestApp) {
  const post = (path: string, body: object) =>
    t.http().post(`${API}${path}`).set('Authorization', t.auth.editor).send(body).expect(201);
  const venue = (await post('/venues', { venue: 'Zaal' })).body.id as number;
  // The English name: a write in English adds that translation.
  await t
    .http()
    .patch(`${API}/venues/${venue}?language=en`)
    .set('Authorization', t.auth.editor)
    .send({ venue: 'Hall' })
    .expect(200);
  const organizer = (await post('/organizers', { organizer: 'Stichting' })).body.id as number;
  const category = (await post('/categories', { name: 'Muziek' })).body.id as number;
  const event = (
    await post('/events', {
      ...when,
      title: 'Concert',
      venue,
      organizer: [organizer],
      categories: [category],
    })
  ).body.id as number;
  return { venue, organizer, category, event };
}

describe('linked records re-used across reads', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    // One port, so every request names the same host (records are kept per host).
    await t.app.listen(0, '127.0.0.1');
  });
  beforeEach(() => t.reset());
  afterAll(() => t?.close());

  const patch = (path: string, body: object) =>
    t.http().patch(`${API}${path}`).set('Authorization', t.auth.editor).send(body).expect(200);

  it('shows a changed venue, organizer and term in the next list and single read', async () => {
    const ids = await seed(t);
    // Warm the shared records.
    expect(await listed(t, ids.event)).toMatchObject({
      venue: { venue: 'Zaal' },
      organizer: [{ organizer: 'Stichting' }],
      categories: [{ name: 'Muziek', count: 1 }],
    });
    await single(t, ids.event);

    await patch(`/venues/${ids.venue}`, { venue: 'Grote zaal' });
    await patch(`/organizers/${ids.organizer}`, { organizer: 'Stichting Muziek' });
    await patch(`/categories/${ids.category}`, { name: 'Klassiek' });
    const expected = {
      venue: { venue: 'Grote zaal' },
      organizer: [{ organizer: 'Stichting Muziek' }],
      categories: [{ name: 'Klassiek', count: 1 }],
    };
    expect(await listed(t, ids.event)).toMatchObject(expected);
    expect(await single(t, ids.event)).toMatchObject(expected);

    // A term's count moves with a write to another event.
    await t
      .http()
      .post(`${API}/events`)
      .set('Authorization', t.auth.editor)
      .send({ ...when, title: 'Tweede', categories: [ids.category] })
      .expect(201);
    expect((await listed(t, ids.event)).categories).toMatchObject([{ count: 2 }]);
  });

  it('keeps languages and hosts apart', async () => {
    const ids = await seed(t);
    for (let round = 0; round < 2; round++) {
      expect((await listed(t, ids.event)).venue).toMatchObject({ venue: 'Zaal' });
      expect((await listed(t, ids.event, { 'Accept-Language': 'en' })).venue).toMatchObject({
        venue: 'Hall',
      });
      const elsewhere = (await single(t, ids.event, { Host: 'calendar.example:8080' })).venue;
      expect(elsewhere).toMatchObject({
        rest_url: `http://calendar.example:8080${API}/venues/${ids.venue}`,
      });
      expect((await single(t, ids.event)).venue).toMatchObject({
        rest_url: expect.not.stringContaining('calendar.example'),
      });
    }
  });

  it('a venue an editor was shown stays hidden from anonymous readers', async () => {
    const ids = await seed(t);
    await patch(`/venues/${ids.venue}`, { status: 'draft' });
    const asEditor = { Authorization: t.auth.editor };
    expect((await listed(t, ids.event, asEditor)).venue).toMatchObject({ id: ids.venue });
    expect((await single(t, ids.event, asEditor)).venue).toMatchObject({ id: ids.venue });
    expect((await listed(t, ids.event)).venue).toEqual([]);
    expect((await single(t, ids.event)).venue).toEqual([]);
  });
});

const mysqlOnly = process.env.TEST_ENGINE === 'mysql' ? describe : describe.skip;

mysqlOnly('linked records re-used across reads, several instances (one MySQL database)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp();
    await a.app.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('shows a venue renamed on another instance in the next read', async () => {
    const ids = await seed(a);
    expect((await listed(a, ids.event)).venue).toMatchObject({ venue: 'Zaal' });
    await b
      .http()
      .patch(`${API}/venues/${ids.venue}`)
      .set('Authorization', b.auth.editor)
      .send({ venue: 'Elders' })
      .expect(200);
    expect((await listed(a, ids.event)).venue).toMatchObject({ venue: 'Elders' });
    expect((await single(a, ids.event)).venue).toMatchObject({ venue: 'Elders' });
  });

  it('lists by the slug a category has after another instance moved it', async () => {
    await a.reset();
    const ids = await seed(a);
    const byCategory = (slug: string) => a.http().get(`${API}/events?categories=${slug}`);
    // Resolved and kept on instance a (the second read takes the kept resolution).
    for (let i = 0; i < 2; i++) {
      const res = await byCategory('muziek').expect(200);
      expect(res.body.events.map((e: { id: number }) => e.id)).toEqual([ids.event]);
    }
    await b
      .http()
      .patch(`${API}/categories/${ids.category}`)
      .set('Authorization', b.auth.editor)
      .send({ slug: 'klassiek' })
      .expect(200);
    expect((await byCategory('muziek').expect(400)).body.code).toBe('rest_invalid_param');
    const moved = await byCategory('klassiek').expect(200);
    expect(moved.body.events.map((e: { id: number }) => e.id)).toEqual([ids.event]);
  });
});
