import type { AfterQueryEvent } from 'typeorm';
import { dayAt, eventRequests } from './helpers/events';
import { API, createTestApp, TestApp } from './helpers/test-app';

/*
 * What an event list costs in statements, as TypeORM's afterQuery sees them,
 * and what it promises in exchange: a list without search words whose total
 * is kept reads its page, events, texts, link IDs and the data version in
 * one statement (docs/performance.md, "Lists"), and an ETag is never kept
 * under a data version newer than the content it tags, so a revalidation
 * after any mix of concurrent writes and lists never gets a stale 304.
 */

let t: TestApp;
let api: ReturnType<typeof eventRequests>;
let counting = false;
let statements: string[] = [];
/** Run once right after the next list page statement, before the list goes on (a Promise: TypeORM awaits only those). */
let afterNextPage: (() => Promise<unknown>) | undefined;
let firstId: number;

beforeAll(async () => {
  // No webhook sender and no import scheduler: their polls would fall inside a counted list.
  t = await createTestApp({ WEBHOOKS_WORKER: 'false', IMPORTS_WORKER: 'false' });
  // One port for every request: records carry absolute URLs, so the Host must not change.
  await t.app.listen(0, '127.0.0.1');
  api = eventRequests(t);
  t.dataSource.subscribers.push({
    afterQuery: (event: AfterQueryEvent) => {
      if (counting) statements.push(event.query);
      // TypeORM awaits a subscriber's promise before the statement's caller goes on.
      if (afterNextPage && /GROUP_CONCAT/i.test(event.query)) {
        const run = afterNextPage;
        afterNextPage = undefined;
        return run();
      }
    },
  });
  for (let day = 6; day >= 1; day--) {
    const res = await api
      .create({ title: `Counted ${day}`, start_date: dayAt(day), end_date: dayAt(day, '14:00:00') })
      .expect(201);
    firstId = res.body.id as number;
  }
});
afterAll(() => t?.close());

/** The statements of one request (the fewest of three: a job's statement may fall inside one). */
async function statementsOf(request: () => Promise<unknown>): Promise<string[]> {
  let fewest: string[] | undefined;
  for (let i = 0; i < 3; i++) {
    statements = [];
    counting = true;
    await request();
    counting = false;
    if (!fewest || statements.length < fewest.length) fewest = statements;
  }
  return fewest!;
}

describe('statements per list', () => {
  it('reads a list whose total is kept in one statement, the data version in it', async () => {
    await api.get('/events').expect(200);
    const sent = await statementsOf(() => api.get('/events').expect(200));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/data_version/);
    expect(sent[0]).toMatch(/GROUP_CONCAT/i);
  });

  it('reads the version first when If-None-Match needs it, then the page without it', async () => {
    const sent = await statementsOf(() =>
      api.get('/events').set('If-None-Match', '"other"').expect(200),
    );
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/data_version/);
    expect(sent[1]).not.toMatch(/data_version/);
  });

  it('answers a matching If-None-Match from the version alone', async () => {
    const etag = (await api.get('/events').expect(200)).headers.etag as string;
    const sent = await statementsOf(() =>
      api.get('/events').set('If-None-Match', etag).expect(304),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/data_version/);
  });

  it('reads an empty page in steps: the version, then the page again', async () => {
    const empty = '/events?start_date=2001-01-01&end_date=2001-01-31';
    await api.get(empty).expect(200);
    const sent = await statementsOf(() => api.get(empty).expect(200));
    expect(sent).toHaveLength(3);
    // The version alone (a plain read of its row), then the page again.
    expect(sent[1]).toMatch(/FROM [`"]?data_version[`"]? WHERE/);
    expect(sent[2]).toMatch(/GROUP_CONCAT/i);
    const etag = (await api.get(empty).expect(200)).headers.etag as string;
    await api.get(empty).set('If-None-Match', etag).expect(304);
  });
});

it("keeps a list's ETag under the version its page was read at, not a later one", async () => {
  const old = await api.get('/events').expect(200);
  // A write commits after the list read its page and before it answers.
  afterNextPage = async () => {
    await api.update(firstId, { title: 'Written meanwhile' }).expect(200);
  };
  const during = await api.get('/events').expect(200);
  expect(afterNextPage).toBeUndefined();
  expect(during.headers.etag).toBe(old.headers.etag);
  const now = await api.get('/events').set('If-None-Match', during.headers.etag as string);
  expect(now.status).toBe(200);
  expect(now.text).toContain('Written meanwhile');
});

it('never answers 304 for content that changed, whatever writes ran beside the lists', async () => {
  const paths = ['/events', '/events?per_page=2', '/events?page=2&per_page=2', '/events?order=id'];
  const seen = new Map<string, Set<string>>(paths.map((path) => [path, new Set()]));
  const list = async (path: string) => {
    const res = await api.get(path);
    if (res.status === 200) seen.get(path)!.add(res.headers.etag as string);
  };
  for (let round = 0; round < 6; round++) {
    // Writes that move every page (a new first event, a retitled one) beside lists of each page.
    const writes = [
      api.create({ title: `Early ${round}`, start_date: dayAt(0, `0${round}:00:00`) }),
      api.update(firstId, { title: `Retitled ${round}` }),
    ];
    await Promise.all([...writes, ...paths.flatMap((path) => [list(path), list(path)])]);
    // Quiet now: each tag ever seen gets 304 only if it is the page's tag today.
    for (const path of paths) {
      const current = (await api.get(path).expect(200)).headers.etag as string;
      await api.get(path).set('If-None-Match', current).expect(304);
      for (const etag of seen.get(path)!) {
        const res = await api.get(path).set('If-None-Match', etag);
        expect({ path, etag, status: res.status }).toEqual({
          path,
          etag,
          status: etag === current ? 304 : 200,
        });
      }
    }
  }
}, 120_000);

describe('term filters kept between lists', () => {
  const term = (path: string, body: object, method: 'post' | 'patch' | 'delete' = 'post') => {
    const http = t.http();
    return http[method](`${API}${path}`)
      .set('Authorization', t.auth.editor)
      .send(body)
      .then((res) => {
        if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
        return res.body as { id: number };
      });
  };
  const titles = async (path: string) =>
    ((await api.get(path).expect(200)).body.events as Array<{ title: string }>).map((e) => e.title);
  let first: number;
  let second: number;

  beforeAll(async () => {
    first = (await term('/categories', { name: 'Zaal', slug: 'zaal' })).id;
    second = (await term('/categories', { name: 'Kelder', slug: 'kelder' })).id;
    await api
      .create({
        title: 'In de zaal',
        start_date: dayAt(30),
        end_date: dayAt(30, '14:00:00'),
        categories: [first],
      })
      .expect(201);
    for (const day of [31, 32, 33]) {
      await api
        .create({
          title: `In de kelder ${day}`,
          start_date: dayAt(day),
          end_date: dayAt(day, '14:00:00'),
          categories: [second],
        })
        .expect(201);
    }
  });

  it('reads a list filtered by a category slug in one statement once the slug is resolved', async () => {
    await api.get('/events?categories=zaal').expect(200);
    const sent = await statementsOf(() => api.get('/events?categories=zaal').expect(200));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/data_version/);
  });

  it('shows the terms a slug names now, after the slug moved to another term', async () => {
    expect(await titles('/events?categories=zaal')).toEqual(['In de zaal']);
    expect(await titles('/events?categories=zaal&per_page=1&page=1')).toEqual(['In de zaal']);
    await term(`/categories/${first}`, { slug: 'oude-zaal' }, 'patch');
    await term(`/categories/${second}`, { slug: 'zaal' }, 'patch');
    const moved = ['In de kelder 31', 'In de kelder 32', 'In de kelder 33'];
    expect(await titles('/events?categories=zaal')).toEqual(moved);
    // A page past the end of the old term's events is a page of the new term's.
    expect(await titles('/events?categories=zaal&per_page=1&page=3')).toEqual([moved[2]]);
    expect(await titles('/events?categories=oude-zaal')).toEqual(['In de zaal']);
    // By ID as well, and a deleted term's slug is unknown.
    expect(await titles(`/events?categories=${first}`)).toEqual(['In de zaal']);
    await term(`/categories/${first}?force=true`, {}, 'delete');
    const gone = await api.get('/events?categories=oude-zaal').expect(400);
    expect(gone.body.code).toBe('rest_invalid_param');
    await api.get(`/events?categories=${first}`).expect(400);
  });
});
