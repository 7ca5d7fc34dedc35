import { DateTime } from 'luxon';
import { API, createTestApp, TestApp } from './helpers/test-app';

/*
 * List totals are cached per filter and data version (CountCacheService):
 * every acknowledged write, on any instance, must show in the next total.
 */

const soon = DateTime.utc().plus({ days: 3 }).startOf('hour');
const event = (title: string) => ({
  title,
  start_date: soon.toFormat('yyyy-MM-dd HH:mm:ss'),
  end_date: soon.plus({ hours: 2 }).toFormat('yyyy-MM-dd HH:mm:ss'),
});

async function total(t: TestApp, query = ''): Promise<number> {
  const res = await t.http().get(`${API}/events${query}`).expect(200);
  expect(res.headers['x-total']).toBe(String(res.body.total));
  return res.body.total as number;
}

describe('cached list totals', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('counts a create, an update that hides, a trash and a restore at once', async () => {
    expect(await total(t)).toBe(0);
    const a = await t
      .http()
      .post(`${API}/events`)
      .set('Authorization', t.auth.editor)
      .send(event('Alfa'))
      .expect(201);
    expect(await total(t)).toBe(1);
    await t
      .http()
      .post(`${API}/events`)
      .set('Authorization', t.auth.editor)
      .send(event('Bravo'))
      .expect(201);
    expect(await total(t)).toBe(2);
    expect(await total(t, '?search=alfa')).toBe(1);

    await t
      .http()
      .patch(`${API}/events/${a.body.id}`)
      .set('Authorization', t.auth.editor)
      .send({ hide_from_listings: true })
      .expect(200);
    expect(await total(t)).toBe(1);
    expect(await total(t, '?search=alfa')).toBe(0);

    await t
      .http()
      .delete(`${API}/events/${a.body.id}`)
      .set('Authorization', t.auth.editor)
      .expect(200);
    await t
      .http()
      .patch(`${API}/events/${a.body.id}`)
      .set('Authorization', t.auth.editor)
      .send({ status: 'publish', hide_from_listings: false })
      .expect(200);
    expect(await total(t)).toBe(2);
  });

  it('keeps totals apart per caller: drafts count for their owner only', async () => {
    await t
      .http()
      .post(`${API}/events`)
      .set('Authorization', t.auth.author)
      .send({ ...event('Draft'), status: 'draft' })
      .expect(201);
    expect(await total(t)).toBe(2);
    const res = await t.http().get(`${API}/events`).set('Authorization', t.auth.author).expect(200);
    expect(res.body.total).toBe(3);
  });
});

const mysqlOnly = process.env.TEST_ENGINE === 'mysql' ? describe : describe.skip;

mysqlOnly('cached list totals across instances (one MySQL database)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('shows a write made on another instance in the next total', async () => {
    expect(await total(a)).toBe(0);
    await b
      .http()
      .post(`${API}/events`)
      .set('Authorization', b.auth.editor)
      .send(event('Elsewhere'))
      .expect(201);
    expect(await total(a)).toBe(1);
  });
});
