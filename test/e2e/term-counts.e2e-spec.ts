import { DateTime } from 'luxon';
import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/*
 * A term's `count` (published events) is kept on the term by event writes
 * (src/terms/term-counts.ts): every transition must leave it exact.
 */

const start = DateTime.utc().plus({ days: 5 }).startOf('hour');
const dates = {
  start_date: start.toFormat('yyyy-MM-dd HH:mm:ss'),
  end_date: start.plus({ hours: 1 }).toFormat('yyyy-MM-dd HH:mm:ss'),
};

describe('term counts kept by event writes', () => {
  let t: TestApp;
  const counts = async (): Promise<Record<string, number>> => {
    const [categories, tags] = await Promise.all(
      ['categories', 'tags'].map((kind) =>
        t.http().get(`${API}/${kind}?hide_empty=false&per_page=50`).expect(200),
      ),
    );
    return Object.fromEntries(
      [...categories.body.categories, ...tags.body.tags].map(
        (term: { name: string; count: number }) => [term.name, term.count],
      ),
    );
  };
  const write = (method: 'post' | 'patch' | 'delete', path: string, body?: object) =>
    t.http()[method](`${API}${path}`).set('Authorization', t.auth.editor).send(body);

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('follows create, status changes, relinking, trash, restore and force delete', async () => {
    const created = await write('post', '/events', {
      title: 'A',
      ...dates,
      categories: 'Jazz, Pop',
      tags: 'live',
    }).expect(201);
    const id = created.body.id as number;
    expect(await counts()).toEqual({ Jazz: 1, Pop: 1, live: 1 });

    await write('post', '/events', {
      title: 'B',
      ...dates,
      categories: 'Jazz',
      status: 'draft',
    }).expect(201);
    expect(await counts()).toEqual({ Jazz: 1, Pop: 1, live: 1 });

    await write('patch', `/events/${id}`, { status: 'draft' }).expect(200);
    expect(await counts()).toEqual({ Jazz: 0, Pop: 0, live: 0 });

    await write('patch', `/events/${id}`, { status: 'publish', categories: 'Pop, Rock' }).expect(
      200,
    );
    expect(await counts()).toEqual({ Jazz: 0, Pop: 1, Rock: 1, live: 1 });

    await write('patch', `/events/${id}`, { tags: [] }).expect(200);
    expect(await counts()).toEqual({ Jazz: 0, Pop: 1, Rock: 1, live: 0 });

    await write('delete', `/events/${id}`).expect(200);
    expect(await counts()).toEqual({ Jazz: 0, Pop: 0, Rock: 0, live: 0 });

    await write('patch', `/events/${id}`, { status: 'publish' }).expect(200);
    expect(await counts()).toEqual({ Jazz: 0, Pop: 1, Rock: 1, live: 0 });

    await write('delete', `/events/${id}?force=true`).expect(200);
    expect(await counts()).toEqual({ Jazz: 0, Pop: 0, Rock: 0, live: 0 });
  });

  it('counts a new event once per term, repeated names and IDs included, and only when published', async () => {
    const jazz = await write('post', '/categories', { name: 'Swing' }).expect(201);
    await write('post', '/events', {
      title: 'C',
      ...dates,
      categories: [jazz.body.id, 'Swing', 'swing', jazz.body.id],
      tags: 'zomer, zomer',
    }).expect(201);
    await write('post', '/events', {
      title: 'D',
      ...dates,
      categories: [jazz.body.id],
      tags: 'zomer',
      status: 'pending',
    }).expect(201);
    const after = await counts();
    expect([after.Swing, after.zomer]).toEqual([1, 1]);
  });

  it('a create naming a missing or misfiled term ID writes nothing, not the terms it names by name', async () => {
    // A create locks and checks its terms after it wrote the event and its texts (as late as it can):
    // a term ID that fails there must roll all of it back.
    const made = await write('post', '/events', {
      title: 'D',
      ...dates,
      categories: 'Blues',
      tags: 'outdoor',
    }).expect(201);
    const [blues] = made.body.categories as Array<{ id: number }>;
    const [outdoor] = made.body.tags as Array<{ id: number }>;
    const events = async () =>
      Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM events'))[0].n);
    const before = { counts: await counts(), events: await events() };
    const refused = [
      { categories: ['Brand new', 99_999_999], param: 'categories' },
      { categories: [blues.id], tags: ['also new', blues.id], param: 'tags' },
      { categories: [outdoor.id, 'Brand new'], param: 'categories' },
    ];
    for (const { param, ...terms } of refused) {
      const res = await write('post', '/events', { title: 'Refused', ...dates, ...terms }).expect(
        400,
      );
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, { [param]: expect.any(String) }),
      );
    }
    expect(await counts()).toEqual(before.counts);
    expect(await events()).toBe(before.events);
  });

  it('concurrent creates in one category answer the counts their own COMMIT made', async () => {
    const category = await write('post', '/categories', { name: 'Rush' }).expect(201);
    const tag = await write('post', '/tags', { name: 'Rushed' }).expect(201);
    const statuses = ['publish', 'draft', 'publish', 'publish', 'draft', 'publish', 'publish'];
    const responses = await Promise.all(
      statuses.map((status, i) =>
        write('post', '/events', {
          title: `Rush ${i}`,
          ...dates,
          status,
          categories: [category.body.id],
          tags: [tag.body.id],
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(statuses.map(() => 201));
    const published = statuses.filter((status) => status === 'publish').length;
    const answered = (status: string, kind: 'categories' | 'tags') =>
      responses
        .filter((_, i) => statuses[i] === status)
        .map((r) => (r.body[kind] as Array<{ count: number }>)[0].count)
        .sort((a, b) => a - b);
    for (const kind of ['categories', 'tags'] as const) {
      // Each published create counted itself after the ones committed before it: 1, 2, … in some order.
      expect(answered('publish', kind)).toEqual(Array.from({ length: published }, (_, i) => i + 1));
      // A draft counts nothing: it answers what the published ones before it made.
      for (const count of answered('draft', kind)) {
        expect(count).toBeGreaterThanOrEqual(0);
        expect(count).toBeLessThanOrEqual(published);
      }
    }
    const after = await counts();
    expect([after.Rush, after.Rushed]).toEqual([published, published]);
  });

  it('stays exact under concurrent updates of one event', async () => {
    const created = await write('post', '/events', {
      title: 'C',
      ...dates,
      categories: 'Salsa',
    }).expect(201);
    const id = created.body.id as number;
    const statuses = [
      'draft',
      'publish',
      'draft',
      'publish',
      'pending',
      'publish',
      'draft',
      'publish',
    ];
    const responses = await Promise.all(
      statuses.map((status) => write('patch', `/events/${id}`, { status })),
    );
    expect(responses.map((r) => r.status)).toEqual(statuses.map(() => 200));
    const final = await t
      .http()
      .get(`${API}/events/${id}`)
      .set('Authorization', t.auth.editor)
      .expect(200);
    expect((await counts()).Salsa).toBe(final.body.status === 'publish' ? 1 : 0);
  });
});
