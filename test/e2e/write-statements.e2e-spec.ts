import type { AfterQueryEvent } from 'typeorm';
import { API, createTestApp, TestApp } from './helpers/test-app';

/*
 * The statements one write sends, counted as TypeORM's afterQuery sees them
 * (every statement, checked against MariaDB's general log by
 * `npm run bench:statements`): a bound per write, so a write that grows a
 * round trip shows here (docs/performance.md, "Writes"). SQLite has no
 * multi-table UPDATE: the data-version bump is a statement of its own there.
 */

/** The most statements each write may send, per engine (figures of docs/performance.md). */
const BOUNDS = {
  'create event, one category': { mysql: 13, sqlite: 14 },
  'create event, venue, 2 organizers, category, 2 tags': { mysql: 18, sqlite: 19 },
  'update event title': { mysql: 15, sqlite: 15 },
  'trash event': { mysql: 14, sqlite: 14 },
};

describe('statements per write', () => {
  let t: TestApp;
  let counting = false;
  let statements: string[] = [];
  const ids: Record<string, number> = {};
  const dates = { start_date: '2090-01-01 19:30:00', end_date: '2090-01-01 22:00:00' };
  const send = (method: 'post' | 'patch' | 'delete', path: string, body?: object) =>
    t.http()[method](`${API}${path}`).set('Authorization', t.auth.administrator).send(body);

  /**
   * The fewest statements of three writes: a statement of a job that runs once in a while
   * (the purges, the recurrence horizon) may fall inside one of them, not inside all three.
   */
  async function fewest(write: (i: number) => Promise<unknown>): Promise<string[]> {
    let best: string[] | undefined;
    for (let i = 0; i < 3; i++) {
      statements = [];
      counting = true;
      await write(i);
      counting = false;
      if (!best || statements.length < best.length) best = statements;
    }
    return best as string[];
  }

  beforeAll(async () => {
    // No webhook sender and no import scheduler: their polls (every 500 ms and IMPORTS_POLL_MS)
    // would fall inside a slow write on a loaded machine, in each of the three. This suite has
    // no endpoint and no import, so a write sends the same statements with them.
    t = await createTestApp({ WEBHOOKS_WORKER: 'false', IMPORTS_WORKER: 'false' });
    t.dataSource.subscribers.push({
      afterQuery: (event: AfterQueryEvent) => {
        if (counting) statements.push(event.query);
      },
    });
    const made = async (path: string, body: object) =>
      (await send('post', path, body).expect(201)).body.id as number;
    ids.category = await made('/categories', { name: 'Counted' });
    ids.tagA = await made('/tags', { name: 'counted a' });
    ids.tagB = await made('/tags', { name: 'counted b' });
    ids.venue = await made('/venues', { venue: 'Counted hall' });
    ids.organizerA = await made('/organizers', { organizer: 'Counted A' });
    ids.organizerB = await made('/organizers', { organizer: 'Counted B' });
  });
  afterAll(() => t?.close());

  const bound = (name: keyof typeof BOUNDS) => BOUNDS[name][t.engine];

  it('an event create with one category', async () => {
    const sent = await fewest((i) =>
      send('post', '/events', { title: `One ${i}`, ...dates, categories: [ids.category] }).expect(
        201,
      ),
    );
    expect(sent.length).toBeLessThanOrEqual(bound('create event, one category'));
    // The category is checked and locked in one read; the answer's terms are read once.
    const termReads = sent.filter(
      (sql) => /FROM [`"]?terms[`"]?\s/i.test(sql) && !/LEFT JOIN/i.test(sql),
    );
    expect(termReads).toHaveLength(1);
  });

  it('an event create with a venue, organizers, a category and tags', async () => {
    const sent = await fewest((i) =>
      send('post', '/events', {
        title: `All ${i}`,
        ...dates,
        venue: ids.venue,
        organizer: [ids.organizerA, ids.organizerB],
        categories: [ids.category],
        tags: [ids.tagA, ids.tagB],
      }).expect(201),
    );
    expect(sent.length).toBeLessThanOrEqual(
      bound('create event, venue, 2 organizers, category, 2 tags'),
    );
    // Both taxonomies' links in one INSERT.
    expect(sent.filter((sql) => /^INSERT INTO [`"]?event_terms[`"]?/i.test(sql))).toHaveLength(1);
  });

  it('a title update and a trash', async () => {
    const created: number[] = [];
    for (let i = 0; i < 6; i++) {
      const body = { title: `Edited ${i}`, ...dates, categories: [ids.category] };
      created.push((await send('post', '/events', body).expect(201)).body.id as number);
    }
    const updated = await fewest((i) =>
      send('patch', `/events/${created[i]}`, { title: `Renamed ${i}` }).expect(200),
    );
    expect(updated.length).toBeLessThanOrEqual(bound('update event title'));
    const trashed = await fewest((i) => send('delete', `/events/${created[3 + i]}`).expect(200));
    expect(trashed.length).toBeLessThanOrEqual(bound('trash event'));
    // The answers are unchanged by the fewer statements: what a GET shows.
    const read = await t.http().get(`${API}/events/${created[0]}`).expect(200);
    expect(read.body.title).toBe('Renamed 0');
    expect(read.body.categories.map((c: { id: number }) => c.id)).toEqual([ids.category]);
  });
});
