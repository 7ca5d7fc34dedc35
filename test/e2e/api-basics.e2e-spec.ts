import { SignJWT } from 'jose';
import { ERROR_MESSAGES } from '../../src/i18n/messages';
import { API, createTestApp, errorBody, TEST_SECRET, TestApp, tokenFor } from './helpers/test-app';

/* The shared machinery of every route: index, doc, errors, auth, request IDs, health. */

describe('API basics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  describe('index', () => {
    it('lists every route of the namespace, itself and /doc included, from the real routes', async () => {
      const res = await t.http().get(API).expect(200);
      expect(res.body.namespace).toBe('calendar/events/v1');
      expect(Object.keys(res.body.routes).sort()).toEqual(
        [
          '',
          '/doc',
          '/categories',
          '/categories/{id}',
          '/tags',
          '/tags/{id}',
          '/venues',
          '/venues/{id}',
          '/venues/by-slug/{slug}',
          '/venues/by-external-id/{source}/{id}',
          '/organizers',
          '/organizers/{id}',
          '/organizers/by-slug/{slug}',
          '/organizers/by-external-id/{source}/{id}',
          '/events',
          '/events/{id}',
          '/events/by-slug/{slug}',
          '/events/by-external-id/{source}/{id}',
          '/webhooks',
          '/webhooks/{id}',
          '/webhooks/{id}/rotate-secret',
          '/webhooks/{id}/deliveries',
          '/webhooks/{id}/deliveries/{delivery_id}/retry',
          '/webhooks/{id}/ping',
          '/imports',
          '/imports/{id}',
          '/events.ics',
          '/events/{id}.ics',
          '/events/by-slug/{slug}.ics',
          '/changes',
          '/batch',
        ]
          .map((path) => `/calendar/events/v1${path}`)
          .sort(),
      );
      const root = `http://${res.request.url.split('/')[2]}`;
      expect(res.body.routes['/calendar/events/v1']).toEqual({
        namespace: 'calendar/events/v1',
        methods: ['GET'],
        endpoints: [
          {
            methods: ['GET'],
            args: {
              namespace: expect.objectContaining({
                required: false,
                type: 'string',
                default: 'calendar/events/v1',
              }),
              context: expect.objectContaining({
                required: false,
                type: 'string',
                default: 'view',
                enum: ['view', 'edit'],
              }),
              language: expect.objectContaining({
                required: false,
                type: 'string',
                enum: ['nl', 'en'],
              }),
            },
          },
        ],
        _links: { self: [{ href: `${root}/calendar/events/v1` }] },
      });
      expect(res.body._links).toEqual({ up: [{ href: `${root}/` }] });
    });

    it('groups methods with the same arguments and marks required body fields', async () => {
      const res = await t.http().get(API).expect(200);
      const item = res.body.routes['/calendar/events/v1/categories/{id}'];
      expect(item.methods).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
      expect(item.endpoints.map((e: { methods: string[] }) => e.methods)).toEqual([
        ['GET'],
        ['POST', 'PUT', 'PATCH'],
        ['DELETE'],
      ]);
      expect(item.endpoints[0].args.id).toEqual(expect.objectContaining({ required: true }));
      const create = res.body.routes['/calendar/events/v1/events'].endpoints.find(
        (e: { methods: string[] }) => e.methods.includes('POST'),
      );
      expect(['title', 'start_date', 'end_date'].map((name) => create.args[name].required)).toEqual(
        [true, true, true],
      );
      expect(create.args.description.required).toBe(false);
      const list = res.body.routes['/calendar/events/v1/events'].endpoints.find(
        (e: { methods: string[] }) => e.methods.includes('GET'),
      );
      expect(list.args.page).toEqual(expect.objectContaining({ type: 'integer', default: 1 }));
    });

    it('answers another namespace with rest_invalid_namespace and a bad context with 400', async () => {
      expect((await t.http().get(`${API}?namespace=wp/v2`).expect(404)).body).toEqual(
        errorBody('rest_invalid_namespace', 404),
      );
      expect((await t.http().get(`${API}?context=`).expect(400)).body).toEqual(
        errorBody('rest_invalid_param', 400, { context: expect.any(String) }),
      );
      expect((await t.http().get(`${API}?context=x`).expect(400)).body).toEqual(
        errorBody('rest_invalid_param', 400, { context: expect.any(String) }),
      );
    });
  });

  describe('URLs in answers', () => {
    it('follow X-Forwarded-Proto from a trusted proxy, and the socket without it', async () => {
      await t.reset();
      for (const name of ['Jazz', 'Rock'])
        await t
          .http()
          .post(`${API}/categories`)
          .set('Authorization', t.auth.editor)
          .send({ name })
          .expect(201);
      const read = async (path: string, proto?: string) => {
        const call = t.http().get(`${API}${path}`).set('Host', 'calendar.test');
        return proto === undefined
          ? call.expect(200)
          : call.set('X-Forwarded-Proto', proto).expect(200);
      };
      for (const [proto, scheme] of [
        [undefined, 'http'],
        ['https', 'https'],
        ['https, http', 'https'],
      ] as const) {
        const root = `${scheme}://calendar.test`;
        expect((await read('', proto)).body._links).toEqual({ up: [{ href: `${root}/` }] });
        expect((await read('/doc', proto)).body.servers).toEqual([{ url: `${root}${API}` }]);
        expect((await read('/categories?hide_empty=false&per_page=1', proto)).headers.link).toBe(
          `<${root}${API}/categories?hide_empty=false&per_page=1&page=2>; rel="next"`,
        );
      }
    });
  });

  describe('language', () => {
    it('rejects an unsupported language with 400 naming the parameter', async () => {
      const res = await t.http().get(`${API}/categories?language=fr`).expect(400);
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, { language: expect.any(String) }),
      );
    });

    it('writes messages in the requested language, else Accept-Language, else nl', async () => {
      const message = async (query: string, header?: string) => {
        const req = t.http().get(`${API}/categories/999${query}`);
        if (header) req.set('Accept-Language', header);
        return (await req.expect(404)).body.message as string;
      };
      const { en, nl } = ERROR_MESSAGES['rest-category-not-found'];
      expect(await message('?language=en')).toBe(en);
      expect(await message('?language=nl', 'en')).toBe(nl);
      expect(await message('', 'fr, en-GB;q=0.8')).toBe(en);
      expect(await message('')).toBe(nl);
      expect(en).not.toBe(nl);
    });

    it('reads the language from a write body too', async () => {
      const res = await t
        .http()
        .post(`${API}/categories`)
        .set('Authorization', t.auth.editor)
        .send({ language: 'en' })
        .expect(400);
      expect(res.body).toEqual({
        code: 'rest_missing_callback_param',
        message: 'Missing parameter(s): name',
        data: { status: 400, params: ['name'] },
      });
    });
  });

  describe('doc', () => {
    it('serves the OpenAPI document with paths relative to the absolute {api} URL', async () => {
      const res = await t.http().get(`${API}/doc`).expect(200);
      const host = res.request.url.split('/')[2];
      expect(res.body.openapi).toMatch(/^3\./);
      expect(res.body.info).toEqual(
        expect.objectContaining({ title: 'Calendar Events Service', version: '1' }),
      );
      expect(res.body.servers).toEqual([{ url: `http://${host}/calendar/events/v1` }]);
      expect(Object.keys(res.body.paths)).toEqual(
        expect.arrayContaining(['/', '/doc', '/events', '/events/{id}', '/venues/by-slug/{slug}']),
      );
      expect(Object.keys(res.body.paths).some((p) => p.startsWith('/calendar'))).toBe(false);
      expect(Object.keys(res.body.components.schemas)).toEqual(
        expect.arrayContaining([
          'ErrorBodyDto',
          'TermRecordDto',
          'VenueRecordDto',
          'OrganizerRecordDto',
          'EventRecordDto',
          'ImageDto',
        ]),
      );
      expect(res.body.paths['/events/{id}'].get.responses['404']).toEqual({
        $ref: '#/components/responses/Error404',
      });
      expect(res.body.components.responses.Error404.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ErrorBodyDto',
      });
    });

    it('serves Swagger UI at /docs', async () => {
      const res = await t.http().get('/docs/').expect(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('swagger-ui');
    });
  });

  describe('errors', () => {
    it('answers unmatched routes and non-numeric IDs with rest_no_route', async () => {
      expect((await t.http().get(`${API}/nothing`).expect(404)).body).toEqual(
        errorBody('rest_no_route', 404),
      );
      expect((await t.http().get(`${API}/categories/foo`).expect(404)).body).toEqual(
        errorBody('rest_no_route', 404),
      );
      expect((await t.http().get(`${API}/events/by-slug/`).expect(404)).body).toEqual(
        errorBody('rest_no_route', 404),
      );
      expect(
        (await t.http().put(`${API}/categories`).set('Authorization', t.auth.editor).expect(404))
          .body,
      ).toEqual(errorBody('rest_no_route', 404));
    });

    it('answers malformed JSON, oversized bodies and other content types', async () => {
      const bad = await t
        .http()
        .post(`${API}/categories`)
        .set('Authorization', t.auth.editor)
        .set('Content-Type', 'application/json')
        .send('{"name": ')
        .expect(400);
      expect(bad.body).toEqual(errorBody('rest_invalid_json', 400));
      const big = await t
        .http()
        .post(`${API}/categories`)
        .set('Authorization', t.auth.editor)
        .send({ name: 'x', description: 'y'.repeat(1024 * 1024) })
        .expect(413);
      expect(big.body).toEqual(errorBody('rest_payload_too_large', 413));
      const text = await t
        .http()
        .post(`${API}/categories`)
        .set('Authorization', t.auth.editor)
        .set('Content-Type', 'text/plain')
        .send('name=x')
        .expect(415);
      expect(text.body).toEqual(errorBody('rest_unsupported_media_type', 415));
    });

    it('accepts form-encoded bodies', async () => {
      const res = await t
        .http()
        .post(`${API}/tags`)
        .set('Authorization', t.auth.editor)
        .type('form')
        .send('name=Buiten&description=Open+lucht')
        .expect(201);
      expect(res.body).toEqual(
        expect.objectContaining({ name: 'Buiten', description: 'Open lucht', slug: 'buiten' }),
      );
    });

    it('carries X-Request-Id on every response, echoing a valid one', async () => {
      const generated = await t.http().get(`${API}/nothing`).expect(404);
      expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(
        (await t.http().get('/health/live').set('X-Request-Id', 'abc-123').expect(200)).headers[
          'x-request-id'
        ],
      ).toBe('abc-123');
      for (const invalid of ['has space', 'x'.repeat(129), 'a<b>']) {
        const res = await t.http().get(API).set('X-Request-Id', invalid).expect(200);
        expect(res.headers['x-request-id']).not.toBe(invalid);
        expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      }
    });
  });

  describe('authentication', () => {
    const post = (authorization?: string) => {
      const req = t.http().post(`${API}/tags`).send({ name: 'Nieuw' });
      return authorization ? req.set('Authorization', authorization) : req;
    };
    const unauthorized = errorBody('rest_forbidden', 401);

    it('answers anonymous and invalid writes with 401 and WWW-Authenticate, before validation', async () => {
      const anonymous = await t.http().post(`${API}/tags`).send({}).expect(401);
      expect(anonymous.body).toEqual(unauthorized);
      expect(anonymous.headers['www-authenticate']).toBe('Bearer');
      const expired = await new SignJWT({ role: 'editor' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('2')
        .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
        .sign(new TextEncoder().encode(TEST_SECRET));
      const wrongSecret = await tokenFor(
        { id: 2, role: 'editor' },
        'another-secret-that-is-long-enough-000000',
      );
      const unknownRole = await tokenFor({ id: 2, role: 'superuser' });
      for (const header of [
        'Bearer garbage',
        `Bearer ${expired}`,
        `Bearer ${wrongSecret}`,
        `Bearer ${unknownRole}`,
        'Basic dXNlcjpwYXNz',
      ]) {
        expect((await post(header).expect(401)).body).toEqual(unauthorized);
      }
    });

    it('answers a read with an invalid token with 401 too, and serves a valid one', async () => {
      expect(
        (await t.http().get(`${API}/tags`).set('Authorization', 'Bearer garbage').expect(401)).body,
      ).toEqual(unauthorized);
      await t.http().get(`${API}/tags`).set('Authorization', t.auth.subscriber).expect(200);
    });

    it('answers a valid token without the right with 403', async () => {
      expect((await post(t.auth.author).expect(403)).body).toEqual(
        errorBody('rest_forbidden', 403),
      );
      await post(t.auth.editor).expect(201);
    });
  });

  describe('health', () => {
    it('answers live and ready outside the namespace', async () => {
      expect((await t.http().get('/health/live').expect(200)).body).toEqual({ status: 'ok' });
      expect((await t.http().get('/health/ready').expect(200)).body).toEqual(
        expect.objectContaining({ status: 'ok', info: { database: { status: 'up' } } }),
      );
      await t.http().get(`${API}/health/live`).expect(404);
    });
  });
});
