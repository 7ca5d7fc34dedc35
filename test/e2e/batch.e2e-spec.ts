import { Webhook } from 'standardwebhooks';
import { feedPage } from './helpers/changes';
import { API, errorBody, UserName } from './helpers/test-app';
import { Received, sleep, useWebhookApp } from './helpers/webhook-receiver';

/*
 * Batches (docs/api.md §18) over HTTP on the jest project's engine: each
 * operation answered as alone (status, headers, body), default and atomic
 * mode with a failure in the middle, per-operation authorisation,
 * validation, If-Match and Idempotency-Key, the limits of the envelope, the
 * data version's bumps, and what the changes feed and webhooks see of a batch's writes.
 */

interface Operation {
  method: string;
  path: string;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
}

interface Result {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}

interface Answer {
  atomic: boolean;
  failed_operation: number | null;
  results: Result[];
}

const createVenue = (venue: string, extra: Record<string, unknown> = {}): Operation => ({
  method: 'POST',
  path: '/venues',
  body: { venue, city: 'Utrecht', ...extra },
});

describe('batches', () => {
  const ctx = useWebhookApp({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
    WEBHOOK_TIMEOUT_MS: '3000',
  });
  // One Host for every request: records carry URLs, and an operation's are the batch's.
  const auth = (user: UserName = 'editor') => ({
    Host: 'api.test',
    Authorization: ctx.t.auth[user],
  });
  const batch = (body: object, headers: Record<string, string> = auth()) =>
    ctx.t.http().post(`${API}/batch`).set(headers).send(body);
  const answerOf = async (body: object, headers?: Record<string, string>) =>
    (await batch(body, headers).expect(200)).body as Answer;
  /** The names of every venue, in ID order (one language is written here). */
  const venueNames = async () =>
    (
      (await ctx.t.dataSource.query(
        'SELECT name FROM venue_translations ORDER BY venue_id',
      )) as Array<{ name: string }>
    ).map((row) => row.name);
  const readVenue = (id: unknown) =>
    ctx.t
      .http()
      .get(`${API}/venues/${String(id)}`)
      .set(auth())
      .expect(200);
  /** A GET's record as a write answers it: without JSON-LD, which only a GET shows. */
  const withoutJsonLd = (body: Record<string, unknown>) => {
    const { json_ld: _jsonLd, ...record } = body;
    return record;
  };

  describe('default mode', () => {
    it('answers each operation as alone; a failure in the middle stops nothing', async () => {
      const answer = await answerOf({
        operations: [createVenue('Tivoli'), createVenue(''), createVenue('Paradiso')],
      });
      expect(answer).toEqual({
        atomic: false,
        failed_operation: null,
        results: [
          {
            status: 201,
            headers: { location: expect.any(String), etag: expect.stringMatching(/^"[^"]+"$/) },
            body: expect.objectContaining({ venue: 'Tivoli' }),
          },
          {
            status: 400,
            headers: {},
            body: errorBody('rest_invalid_param', 400, { venue: expect.any(String) }),
          },
          {
            status: 201,
            headers: { location: expect.any(String), etag: expect.stringMatching(/^"[^"]+"$/) },
            body: expect.objectContaining({ venue: 'Paradiso' }),
          },
        ],
      });
      expect(await venueNames()).toEqual(['Tivoli', 'Paradiso']);
      // Each answer is the route's own: Location, ETag and body as a GET of the record shows them.
      for (const result of [answer.results[0], answer.results[2]]) {
        const body = result.body as { id: number; rest_url: string };
        expect(result.headers.location).toBe(body.rest_url);
        const read = await readVenue(body.id);
        expect(withoutJsonLd(read.body as Record<string, unknown>)).toEqual(body);
        expect(read.headers.etag).toBe(result.headers.etag);
      }
    });

    it('answers an unknown route or a missing record per operation', async () => {
      const answer = await answerOf({
        operations: [
          { method: 'DELETE', path: '/venues/999999' },
          { method: 'POST', path: '/venues/7/nothing', body: {} },
        ],
      });
      expect(answer.results).toEqual([
        { status: 404, headers: {}, body: errorBody('rest-venue-not-found', 404) },
        { status: 404, headers: {}, body: errorBody('rest_no_route', 404) },
      ]);
    });
  });

  describe('atomic mode', () => {
    it('commits every operation together', async () => {
      const answer = await answerOf({
        atomic: true,
        operations: [
          createVenue('Tivoli'),
          // A key written by an earlier operation is found in the batch's own transaction.
          {
            method: 'PUT',
            path: '/venues/by-external-id/cms/v1',
            body: { venue: 'Ekko', city: 'Utrecht' },
          },
          {
            method: 'PUT',
            path: '/venues/by-external-id/cms/v1',
            body: { venue: 'Ekko Utrecht', city: 'Utrecht' },
          },
        ],
      });
      expect(answer.atomic).toBe(true);
      expect(answer.failed_operation).toBeNull();
      expect(answer.results.map((r) => [r.status, r.body?.venue])).toEqual([
        [201, 'Tivoli'],
        [201, 'Ekko'],
        [200, 'Ekko Utrecht'],
      ]);
      expect(answer.results[2].body?.id).toBe(answer.results[1].body?.id);
      expect(await venueNames()).toEqual(['Tivoli', 'Ekko Utrecht']);
      const read = await readVenue(answer.results[2].body?.id);
      expect(read.headers.etag).toBe(answer.results[2].headers.etag);
    });

    it('a failure in the middle rolls back everything and names the failed operation', async () => {
      await ctx.t.http().post(`${API}/venues`).set(auth()).send({ venue: 'Before' }).expect(201);
      const start = await feedPage(ctx.t, {}, ctx.t.auth.administrator);
      const answer = await answerOf({
        atomic: true,
        operations: [
          createVenue('Tivoli'),
          { method: 'PATCH', path: '/venues/999999', body: { city: 'Amsterdam' } },
          createVenue('Paradiso'),
        ],
      });
      expect(answer).toEqual({
        atomic: true,
        failed_operation: 1,
        results: [
          {
            status: 424,
            headers: {},
            body: errorBody('rest_batch_rolled_back', 424, undefined, { failed_operation: 1 }),
          },
          { status: 404, headers: {}, body: errorBody('rest-venue-not-found', 404) },
          {
            status: 424,
            headers: {},
            body: errorBody('rest_batch_not_executed', 424, undefined, { failed_operation: 1 }),
          },
        ],
      });
      expect(await venueNames()).toEqual(['Before']);
      // No change row, no numbering: the feed has nothing after its cursor.
      const feed = await feedPage(ctx.t, { since: start.next_cursor }, ctx.t.auth.administrator);
      expect(feed.changes).toEqual([]);
    });

    it('refuses a per-operation Idempotency-Key; the batch key replays the whole answer', async () => {
      const refused = await batch({
        atomic: true,
        operations: [{ ...createVenue('Tivoli'), headers: { 'Idempotency-Key': 'op-1' } }],
      }).expect(400);
      expect(refused.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          'operations.0.headers.Idempotency-Key': expect.any(String),
        }),
      );
      const body = { atomic: true, operations: [createVenue('Tivoli'), createVenue('Paradiso')] };
      const headers = { ...auth(), 'Idempotency-Key': 'batch-1' };
      const first = await batch(body, headers).expect(200);
      const again = await batch(body, headers).expect(200);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await venueNames()).toEqual(['Tivoli', 'Paradiso']);
    });
  });

  describe('per operation', () => {
    it('authorises each operation as its caller; an anonymous batch is 401', async () => {
      const answer = await answerOf(
        {
          operations: [
            { method: 'POST', path: '/categories', body: { name: 'Jazz' } },
            createVenue('Tivoli'),
          ],
        },
        auth('contributor'),
      );
      expect(answer.results.map((r) => r.status)).toEqual([403, 201]);
      expect(answer.results[0].body).toEqual(errorBody('rest_forbidden', 403));
      expect(answer.results[1].body).toMatchObject({ venue: 'Tivoli', author: '4' });

      const anonymous = await batch(
        { operations: [createVenue('Paradiso')] },
        { Host: 'api.test' },
      );
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual(errorBody('rest_forbidden', 401));
      expect(anonymous.headers['www-authenticate']).toBe('Bearer');
      expect(await venueNames()).toEqual(['Tivoli']);
    });

    it('checks If-Match per operation and answers the new ETag', async () => {
      const created = await ctx.t
        .http()
        .post(`${API}/venues`)
        .set(auth())
        .send({ venue: 'Tivoli', city: 'Utrecht' })
        .expect(201);
      const id = created.body.id as number;
      const tag = created.headers.etag as string;
      const answer = await answerOf({
        operations: [
          {
            method: 'PATCH',
            path: `/venues/${id}`,
            body: { city: 'Amsterdam' },
            headers: { 'If-Match': '"stale"' },
          },
          {
            method: 'PATCH',
            path: `/venues/${id}`,
            body: { city: 'Den Haag' },
            // Header names in any case, as in HTTP.
            headers: { 'if-match': tag },
          },
          {
            method: 'PATCH',
            path: `/venues/${id}`,
            body: { city: 'Leiden' },
            headers: { 'If-Match': tag },
          },
        ],
      });
      expect(answer.results.map((r) => [r.status, r.body?.city ?? r.body?.code])).toEqual([
        [412, 'rest_precondition_failed'],
        [200, 'Den Haag'],
        [412, 'rest_precondition_failed'],
      ]);
      const read = await readVenue(id);
      expect(read.body.city).toBe('Den Haag');
      expect(read.headers.etag).toBe(answer.results[1].headers.etag);
    });

    it('claims an Idempotency-Key per operation: a retried batch replays it', async () => {
      const body = {
        operations: [
          { ...createVenue('Tivoli'), headers: { 'Idempotency-Key': 'venue-tivoli' } },
          { ...createVenue('Paradiso'), headers: { 'Idempotency-Key': 'venue-paradiso' } },
        ],
      };
      const first = await answerOf(body);
      const again = await answerOf({
        operations: [
          ...body.operations,
          { ...createVenue('Ekko'), headers: { 'Idempotency-Key': '\u0001' } },
        ],
      });
      expect(first.results.map((r) => r.status)).toEqual([201, 201]);
      expect(again.results.slice(0, 2)).toEqual(
        first.results.map((r) => ({
          ...r,
          headers: { ...r.headers, 'idempotency-replayed': 'true' },
        })),
      );
      expect(again.results[2]).toEqual({
        status: 400,
        headers: {},
        body: errorBody('rest_invalid_param', 400, { 'Idempotency-Key': expect.any(String) }),
      });
      expect(await venueNames()).toEqual(['Tivoli', 'Paradiso']);
    });

    it('validates each body with its route, in the language of the batch', async () => {
      const answer = await answerOf(
        { operations: [createVenue('')] },
        { ...auth(), 'Accept-Language': 'en' },
      );
      expect(answer.results).toEqual([
        {
          status: 400,
          headers: {},
          body: {
            code: 'rest_invalid_param',
            message: 'Invalid parameter(s): venue',
            data: { status: 400, params: { venue: expect.stringMatching(/^venue /) } },
          },
        },
      ]);
    });
  });

  describe('limits', () => {
    it('are declared in /doc, with the answer (every answer of this suite is checked against it)', async () => {
      const doc = (await ctx.t.http().get(`${API}/doc`).expect(200)).body as {
        paths: Record<string, Record<string, any>>;
        components: { schemas: Record<string, any> };
      };
      const post = doc.paths['/batch'].post;
      expect(post.security).toEqual([{ bearer: [] }]);
      expect(post.responses['200'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/BatchAnswerDto',
      });
      const request = doc.components.schemas.BatchRequestDto;
      expect(request.required).toEqual(['operations']);
      expect(request.properties.operations).toMatchObject({ minItems: 1, maxItems: 100 });
      expect(doc.components.schemas.BatchOperationDto.properties.method.enum).toEqual([
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
      ]);
    });

    it('takes 100 operations, not 101', async () => {
      const hundred = Array.from({ length: 100 }, (_, i) => createVenue(`Venue ${i}`));
      const answer = await answerOf({ operations: hundred });
      expect(answer.results.filter((r) => r.status === 201)).toHaveLength(100);
      const tooMany = await batch({ operations: [...hundred, createVenue('One more')] }).expect(
        400,
      );
      expect(tooMany.body).toEqual(
        errorBody('rest_invalid_param', 400, { operations: expect.any(String) }),
      );
      expect(await venueNames()).toHaveLength(100);
    });

    it.each([
      ['a nested batch', { method: 'POST', path: '/batch', body: { operations: [] } }, 'path'],
      ['an absolute URL', { method: 'POST', path: 'http://evil.test/venues', body: {} }, 'path'],
      ['another host', { method: 'POST', path: '//evil.test/venues', body: {} }, 'path'],
      ['a dot segment', { method: 'POST', path: '/venues/../batch', body: {} }, 'path'],
      [
        'an encoded dot segment',
        { method: 'POST', path: '/venues/%2e%2e/batch', body: {} },
        'path',
      ],
      ['a route outside the collections', { method: 'POST', path: '/webhooks', body: {} }, 'path'],
      ['a read', { method: 'GET', path: '/venues' }, 'method'],
      [
        'a header of its own other than If-Match and Idempotency-Key',
        { method: 'POST', path: '/venues', body: {}, headers: { Authorization: 'Bearer x' } },
        'headers.Authorization',
      ],
      [
        'a header value that is no string',
        { method: 'POST', path: '/venues', body: {}, headers: { 'If-Match': 7 } },
        'headers.If-Match',
      ],
      ['a body that is no object', { method: 'POST', path: '/venues', body: [1] }, 'body'],
    ])('refuses %s, running nothing', async (_name, operation, field) => {
      const res = await batch({ operations: [createVenue('Tivoli'), operation] }).expect(400);
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, { [`operations.1.${field}`]: expect.any(String) }),
      );
      expect(await venueNames()).toEqual([]);
    });

    it('refuses an empty list and a missing one', async () => {
      expect((await batch({ operations: [] }).expect(400)).body).toEqual(
        errorBody('rest_invalid_param', 400, { operations: expect.any(String) }),
      );
      expect((await batch({ atomic: true }).expect(400)).body).toEqual(
        errorBody('rest_missing_callback_param', 400, ['operations']),
      );
    });
  });

  describe('data version', () => {
    const version = async () =>
      Number(
        (
          (await ctx.t.dataSource.query('SELECT version FROM data_version WHERE id = 1')) as Array<{
            version: number | string;
          }>
        )[0].version,
      );
    const bumpsOf = async (body: object) => {
      const before = await version();
      await answerOf(body);
      return (await version()) - before;
    };

    it('moves once per write of a default batch, never for the batch itself', async () => {
      expect(
        await bumpsOf({
          operations: [createVenue('Tivoli'), createVenue(''), createVenue('Ekko')],
        }),
      ).toBe(2);
      expect(
        await bumpsOf({
          operations: [createVenue(''), { method: 'DELETE', path: '/venues/999999' }],
        }),
      ).toBe(0);
    });

    it('moves once for a committed atomic batch, not for one that rolled back', async () => {
      expect(
        await bumpsOf({ atomic: true, operations: [createVenue('Tivoli'), createVenue('Ekko')] }),
      ).toBe(1);
      expect(
        await bumpsOf({ atomic: true, operations: [createVenue('Paradiso'), createVenue('')] }),
      ).toBe(0);
      expect(await venueNames()).toEqual(['Tivoli', 'Ekko']);
    });
  });

  describe('feed and webhooks', () => {
    const subscribe = async (path: string) =>
      (
        await ctx.t
          .http()
          .post(`${API}/webhooks`)
          .set(auth('administrator'))
          .send({ url: ctx.receiver.url(path), events: ['venue.created', 'venue.updated'] })
          .expect(201)
      ).body.secret as string;
    const messagesOn = (path: string, secret: string) =>
      ctx.receiver.on(path).map((received: Received) =>
        new Webhook(secret).verify(received.body, {
          'webhook-id': String(received.headers['webhook-id']),
          'webhook-timestamp': String(received.headers['webhook-timestamp']),
          'webhook-signature': String(received.headers['webhook-signature']),
        }),
      ) as Array<{ type: string; data: { id: number; record: { venue: string } } }>;

    it.each([false, true])('see each write of a batch (atomic: %s)', async (atomic) => {
      const path = `/batch-${String(atomic)}`;
      const secret = await subscribe(path);
      const start = await feedPage(ctx.t, {}, ctx.t.auth.administrator);
      const answer = await answerOf({
        atomic,
        operations: [
          createVenue('Tivoli'),
          createVenue('Paradiso'),
          { method: 'PUT', path: '/venues/by-external-id/cms/ekko', body: { venue: 'Ekko' } },
          { method: 'PUT', path: '/venues/by-external-id/cms/ekko', body: { venue: 'Ekko 2' } },
        ],
      });
      const ids = answer.results.map((r) => r.body?.id as number);
      await ctx.receiver.waitFor(path, 4);
      await sleep(300);
      // One message per write, in any order (webhooks.md: messages are not ordered).
      const byRecordAndType = (a: unknown[], b: unknown[]) =>
        Number(a[1]) - Number(b[1]) || String(a[0]).localeCompare(String(b[0]));
      const received = messagesOn(path, secret).map((m) => [
        m.type,
        m.data.id,
        m.data.record.venue,
      ]);
      expect(received.sort(byRecordAndType)).toEqual([
        ['venue.created', ids[0], 'Tivoli'],
        ['venue.created', ids[1], 'Paradiso'],
        ['venue.created', ids[2], 'Ekko'],
        ['venue.updated', ids[2], 'Ekko 2'],
      ]);
      const feed = await feedPage(ctx.t, { since: start.next_cursor }, ctx.t.auth.administrator);
      expect(feed.changes.map((c) => [c.kind, c.id, c.type, c.record?.venue])).toEqual([
        ['venue', ids[0], 'upsert', 'Tivoli'],
        ['venue', ids[1], 'upsert', 'Paradiso'],
        ['venue', ids[2], 'upsert', 'Ekko 2'],
      ]);
    });

    it('send nothing for a rolled-back atomic batch', async () => {
      const path = '/rolled-back';
      const secret = await subscribe(path);
      await answerOf({
        atomic: true,
        operations: [createVenue('Tivoli'), createVenue('')],
      });
      await ctx.t.http().post(`${API}/venues`).set(auth()).send({ venue: 'After' }).expect(201);
      await ctx.receiver.waitFor(path, 1);
      await sleep(300);
      expect(messagesOn(path, secret).map((m) => [m.type, m.data.record.venue])).toEqual([
        ['venue.created', 'After'],
      ]);
    });
  });
});
