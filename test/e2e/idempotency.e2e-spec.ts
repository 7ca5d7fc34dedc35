import type { Response } from 'supertest';
import { IdempotencyRetention } from '../../src/idempotency/idempotency-retention.service';
import { EventWrites } from '../../src/events/event-writes.service';
import { TermsService } from '../../src/terms/terms.service';
import { dayAt } from './helpers/events';
import { API, createTestApp, errorBody, TestApp, UserName } from './helpers/test-app';

/*
 * Idempotency-Key on POST (docs/api.md §13), over HTTP on the jest project's engine.
 */
describe('idempotent POSTs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(() => t.reset());
  afterEach(() => jest.restoreAllMocks());

  const post = (path: string, body: object | string, key?: string, user: UserName = 'editor') => {
    // One Host for every request: supertest listens on a new port per request, and records carry URLs.
    let req = t
      .http()
      .post(`${API}${path}`)
      .set('Host', 'api.test')
      .set('Authorization', t.auth[user]);
    if (key !== undefined) req = req.set('Idempotency-Key', key);
    if (typeof body === 'string') req = req.set('Content-Type', 'application/json');
    return req.send(body);
  };
  const total = async (collection: string) => {
    const res = await t
      .http()
      .get(`${API}/${collection}${collection === 'events' ? '' : '?hide_empty=false'}`)
      .set('Authorization', t.auth.administrator)
      .expect(200);
    return Number(res.headers['x-total']);
  };
  const keyRows = async () =>
    Number(
      (
        (await t.dataSource.query('SELECT COUNT(*) AS n FROM idempotency_keys')) as [{ n: unknown }]
      )[0].n,
    );
  /** What a client compares: status, body, Location, ETag. */
  const answer = (res: Response) => ({
    status: res.status,
    body: res.body as unknown,
    location: res.headers.location as string | undefined,
    etag: res.headers.etag as string | undefined,
  });

  it('replays a create: same status, body and Location, Idempotency-Replayed, one record', async () => {
    const first = await post('/categories', { name: 'Jazz' }, 'key-1').expect(201);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    expect(first.headers.location).toBe(first.body.urls.self);
    const again = await post('/categories', { name: 'Jazz' }, 'key-1').expect(201);
    expect(answer(again)).toEqual(answer(first));
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(await total('categories')).toBe(1);
    // Without a key, the same body is a new request (here: the name exists → 400).
    await post('/categories', { name: 'Jazz' }).expect(400);
  });

  it('replays an event create and a POST update', async () => {
    const body = { title: 'Concert', start_date: dayAt(10), end_date: dayAt(10, '14:00:00') };
    const first = await post('/events', body, 'event-1').expect(201);
    expect(first.headers.etag).toMatch(/^"[^"]+"$/);
    const again = await post('/events', body, 'event-1').expect(201);
    expect(answer(again)).toEqual(answer(first));
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(await total('events')).toBe(1);

    const update = await post(`/events/${first.body.id}`, { title: 'Concert 2' }, 'upd-1').expect(
      200,
    );
    // Changed since by another request: the replay still gives the stored answer.
    await post(`/events/${first.body.id}`, { title: 'Concert 3' }).expect(200);
    const replay = await post(`/events/${first.body.id}`, { title: 'Concert 2' }, 'upd-1').expect(
      200,
    );
    expect(replay.body).toEqual(update.body);
    expect(replay.body.title).toBe('Concert 2');
    expect(replay.headers['idempotency-replayed']).toBe('true');
    // The ETag the first answer carried (docs/api.md §11), not the record's current one.
    expect(update.headers.etag).toMatch(/^"[^"]+"$/);
    expect(replay.headers.etag).toBe(update.headers.etag);
    const current = await t
      .http()
      .get(`${API}/events/${first.body.id}`)
      .set('Host', 'api.test')
      .set('Authorization', t.auth.editor)
      .expect(200);
    expect(current.headers.etag).not.toBe(update.headers.etag);
  });

  it('replays a retried update with If-Match instead of answering 412', async () => {
    const body = { title: 'Repetitie', start_date: dayAt(4), end_date: dayAt(4, '21:00:00') };
    const created = await post('/events', body).expect(201);
    const update = () =>
      post(`/events/${created.body.id}`, { title: 'Generale' }, 'if-match-1').set(
        'If-Match',
        created.headers.etag as string,
      );
    const first = await update().expect(200);
    // The record's ETag moved, so the If-Match alone would now fail; the key replays first.
    const again = await update().expect(200);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(answer(again)).toEqual(answer(first));
    await post(`/events/${created.body.id}`, { title: 'Generale' })
      .set('If-Match', created.headers.etag as string)
      .expect(412);
  });

  it('takes bodies equal after parsing as the same: key order and whitespace do not count', async () => {
    const first = await post(
      '/categories',
      '{"name":"Jazz","description":"Swing","parent":0}',
      'k',
    );
    expect(first.status).toBe(201);
    const again = await post(
      '/categories',
      '{\n  "parent": 0,\n  "description": "Swing",   "name": "Jazz"\n}',
      'k',
    ).expect(201);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(answer(again)).toEqual(answer(first));
    expect(await total('categories')).toBe(1);
  });

  it('answers 422 to the same key with another body or another path, and writes nothing', async () => {
    await post('/categories', { name: 'Jazz' }, 'k').expect(201);
    const otherBody = await post('/categories', { name: 'Blues' }, 'k').expect(422);
    expect(otherBody.body).toEqual(errorBody('rest_idempotency_key_reused', 422));
    const otherPath = await post('/tags', { name: 'Jazz' }, 'k').expect(422);
    expect(otherPath.body).toEqual(errorBody('rest_idempotency_key_reused', 422));
    const otherQuery = await post('/categories?language=en', { name: 'Jazz' }, 'k').expect(422);
    expect(otherQuery.body.code).toBe('rest_idempotency_key_reused');
    expect(await total('categories')).toBe(1);
    expect(await total('tags')).toBe(0);
  });

  it('scopes keys per caller: two callers with one key make two records', async () => {
    const a = await post('/categories', { name: 'Jazz' }, 'shared', 'editor').expect(201);
    const b = await post('/categories', { name: 'Blues' }, 'shared', 'administrator').expect(201);
    expect(b.headers['idempotency-replayed']).toBeUndefined();
    expect(b.body.id).not.toBe(a.body.id);
    expect(await total('categories')).toBe(2);
  });

  it('answers 409 while the first request with the key still runs, then replays', async () => {
    const terms = t.app.get(TermsService);
    const create = terms.create.bind(terms);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    jest.spyOn(terms, 'create').mockImplementationOnce(async (...args) => {
      entered();
      await held;
      return create(...args);
    });
    const first = post('/categories', { name: 'Jazz' }, 'slow').then((res) => res);
    await started;
    const during = await post('/categories', { name: 'Jazz' }, 'slow').expect(409);
    expect(during.body).toEqual(errorBody('rest_idempotency_key_in_use', 409));
    release();
    const done = await first;
    expect(done.status).toBe(201);
    const after = await post('/categories', { name: 'Jazz' }, 'slow').expect(201);
    expect(answer(after)).toEqual(answer(done));
    expect(await total('categories')).toBe(1);
  });

  it('takes over an abandoned claim; the first request, should it go on, cannot commit', async () => {
    const events = t.app.get(EventWrites);
    const create = events.create.bind(events);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    jest.spyOn(events, 'create').mockImplementationOnce(async (...args) => {
      entered();
      await held;
      return create(...args);
    });
    const body = { title: 'Verlaten', start_date: dayAt(3), end_date: dayAt(3, '15:00:00') };
    const first = post('/events', body, 'abandoned').then((res) => res);
    await started;
    // Its lease runs out (as when its process died).
    await t.dataSource.query('UPDATE idempotency_keys SET lease_until = 0');
    const retry = await post('/events', body, 'abandoned').expect(201);
    expect(retry.headers['idempotency-replayed']).toBeUndefined();
    release();
    const late = await first;
    expect(late.status).toBe(409);
    expect(late.body).toEqual(errorBody('rest_idempotency_key_in_use', 409));
    expect(await total('events')).toBe(1);
    const replay = await post('/events', body, 'abandoned').expect(201);
    expect(answer(replay)).toEqual(answer(retry));
  });

  it('20 concurrent requests with one key make exactly one record; a retry replays it', async () => {
    const body = { title: 'Race', start_date: dayAt(5), end_date: dayAt(5, '13:00:00') };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post('/events', body, 'race')),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
    const created = answers.filter((res) => res.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const res of created) expect(answer(res)).toEqual(answer(created[0]));
    for (const res of answers.filter((r) => r.status === 409)) {
      expect(res.body).toEqual(errorBody('rest_idempotency_key_in_use', 409));
    }
    expect(await total('events')).toBe(1);
    const retry = await post('/events', body, 'race').expect(201);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    expect(answer(retry)).toEqual(answer(created[0]));
    console.log(
      `one key, 20 at once (${t.engine}): ${created.length} × 201, ${20 - created.length} × 409`,
    );
  });

  it('stores a 400 answer and replays it', async () => {
    const first = await post('/categories', { name: '' }, 'bad').expect(400);
    expect(first.body.code).toBe('rest_invalid_param');
    const again = await post('/categories', { name: '' }, 'bad').expect(400);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotency-replayed']).toBe('true');
    // The key is used: a corrected body needs a new key.
    await post('/categories', { name: 'Jazz' }, 'bad').expect(422);
    await post('/categories', { name: 'Jazz' }, 'good').expect(201);
  });

  it('treats an expired key as new, and the periodic job deletes expired keys', async () => {
    const first = await post('/categories', { name: 'Jazz' }, 'old').expect(201);
    await post('/tags', { name: 'Rock' }, 'fresh').expect(201);
    // 25 hours pass for the first key (IDEMPOTENCY_TTL_HOURS defaults to 24).
    await t.dataSource.query(
      'UPDATE idempotency_keys SET expires_at = expires_at - 25 * 3600 WHERE status = 201 AND answer_kind = ?',
      ['category'],
    );
    const reused = await post('/categories', { name: 'Blues' }, 'old').expect(201);
    expect(reused.headers['idempotency-replayed']).toBeUndefined();
    expect(reused.body.id).not.toBe(first.body.id);
    expect(await total('categories')).toBe(2);

    await t.dataSource.query(
      'UPDATE idempotency_keys SET expires_at = expires_at - 25 * 3600 WHERE answer_kind = ?',
      ['tag'],
    );
    expect(await keyRows()).toBe(2);
    expect(await t.app.get(IdempotencyRetention).purgeExpired()).toBe(1);
    expect(await keyRows()).toBe(1);
    // The unexpired key still replays.
    const replay = await post('/categories', { name: 'Blues' }, 'old').expect(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
  });

  it.each([
    ['empty', ''],
    ['a space', 'two words'],
    ['256 characters', 'k'.repeat(256)],
    ['non-ASCII', 'sleutel-\u00e9'],
  ])('answers 400 to an Idempotency-Key with %s', async (_, key) => {
    const res = await post('/categories', { name: 'Jazz' }, key).expect(400);
    expect(res.body).toEqual(
      errorBody('rest_invalid_param', 400, { 'Idempotency-Key': expect.any(String) }),
    );
    expect(await total('categories')).toBe(0);
  });

  it('accepts 255 visible ASCII characters as a key', async () => {
    const key = '!~' + 'a'.repeat(253);
    await post('/categories', { name: 'Jazz' }, key).expect(201);
    const again = await post('/categories', { name: 'Jazz' }, key).expect(201);
    expect(again.headers['idempotency-replayed']).toBe('true');
  });

  it('a write that committed but whose answer was lost is replayed, not made again', async () => {
    const terms = t.app.get(TermsService);
    const create = terms.create.bind(terms);
    jest.spyOn(terms, 'create').mockImplementationOnce(async (...args) => {
      await create(...args);
      throw new Error('the answer was lost after the commit');
    });
    const lost = await post('/categories', { name: 'Jazz' }, 'lost').expect(500);
    expect(lost.body).toEqual(errorBody('rest_internal_error', 500));
    expect(await total('categories')).toBe(1);

    const retry = await post('/categories', { name: 'Jazz' }, 'lost').expect(201);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    const read = await t
      .http()
      .get(`${API}/categories/${retry.body.id}`)
      .set('Host', 'api.test')
      .set('Authorization', t.auth.editor)
      .expect(200);
    expect(retry.body).toEqual(read.body);
    expect(retry.headers.location).toBe(read.body.urls.self);
    // The ETag a write carries: that of the GET, so a client can chain If-Match.
    expect(retry.headers.etag).toBe(read.headers.etag);
    const again = await post('/categories', { name: 'Jazz' }, 'lost').expect(201);
    expect(answer(again)).toEqual(answer(retry));
    expect(await total('categories')).toBe(1);
  });

  it('an event create whose answer was lost is replayed as the create would have answered', async () => {
    const events = t.app.get(EventWrites);
    const create = events.create.bind(events);
    let answered: unknown;
    jest.spyOn(events, 'create').mockImplementationOnce(async (...args) => {
      answered = (await create(...args)).record;
      throw new Error('the answer was lost after the commit');
    });
    const body = { title: 'Kwijt', start_date: dayAt(6), end_date: dayAt(6, '18:00:00') };
    await post('/events', body, 'lost-event').expect(500);
    const retry = await post('/events', body, 'lost-event').expect(201);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    expect(retry.body).toEqual(JSON.parse(JSON.stringify(answered)));
    expect(retry.headers.location).toBe(retry.body.rest_url);
    // The event's GET (with JSON-LD) differs from the create's answer; the tag is the GET's.
    const read = await t
      .http()
      .get(`${API}/events/${retry.body.id}`)
      .set('Host', 'api.test')
      .set('Authorization', t.auth.editor)
      .expect(200);
    expect(retry.headers.etag).toBe(read.headers.etag);
    expect(await total('events')).toBe(1);
  });

  it('a 5xx answer is not stored: the key is released and a retry runs the request', async () => {
    const terms = t.app.get(TermsService);
    jest.spyOn(terms, 'create').mockRejectedValueOnce(new Error('failed before any write'));
    await post('/categories', { name: 'Jazz' }, 'flaky').expect(500);
    expect(await total('categories')).toBe(0);
    const retry = await post('/categories', { name: 'Jazz' }, 'flaky').expect(201);
    expect(retry.headers['idempotency-replayed']).toBeUndefined();
    expect(await total('categories')).toBe(1);
  });

  it('ignores the header on other methods and declares it in /doc', async () => {
    const created = await post('/categories', { name: 'Jazz' }).expect(201);
    await t
      .http()
      .patch(`${API}/categories/${created.body.id}`)
      .set('Authorization', t.auth.editor)
      .set('Idempotency-Key', 'not for patch')
      .send({ name: 'Blues' })
      .expect(200);
    const doc = (await t.http().get(`${API}/doc`).expect(200)).body;
    const operation = doc.paths['/categories'].post;
    expect(operation.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
    );
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['409', '422']));
    expect(operation.responses['201'].headers['Idempotency-Replayed']).toEqual({
      $ref: '#/components/headers/Idempotency-Replayed',
    });
    expect(Object.keys(doc.paths['/categories'].get.responses)).not.toContain('422');
  });
});
