import { dayAt, eventRequests } from '../helpers/events';
import { API, createTestApp, errorBody, TestApp } from '../helpers/test-app';
import { EventsService } from '../../../src/events/events.service';

/*
 * Security properties of the HTTP surface (issue: reliability): helmet's
 * headers, CORS as configured (docs/api.md §10), bearer tokens and event
 * passwords kept out of the logs, password hashes never answered, and error
 * bodies that never carry a stack trace, SQL or internal name (docs/api.md §8).
 * The constant-time password comparison is checked in test/unit/security.spec.ts.
 */

/** What helmet (CSP and COEP off, see configureApp) puts on every answer. */
const HELMET_HEADERS = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

const ORIGIN = 'https://dashboard.example';
const OTHER_ORIGIN = 'https://evil.example';
const PASSWORD = 'Geheim-wachtwoord-9731';

const eventBody = (fields: object = {}) => ({
  title: 'Beveiligd',
  start_date: dayAt(5, '10:00:00'),
  end_date: dayAt(5, '12:00:00'),
  ...fields,
});

describe('security', () => {
  describe('headers and responses', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ CORS_ORIGINS: '' });
    });
    afterAll(() => t?.close());

    it.each([
      ['an API list', `${API}/events`, 200],
      ['the OpenAPI document', `${API}/doc`, 200],
      ['the Swagger UI', '/docs', 200],
      ['an error', `${API}/events/999`, 404],
      ['a missing route', `${API}/nothing-here`, 404],
      ['a health probe', '/health/live', 200],
    ])('puts the security headers on %s and no X-Powered-By', async (_label, path, status) => {
      const res = await t.http().get(path).redirects(1);
      expect(res.status).toBe(status);
      expect(res.headers).toEqual(expect.objectContaining(HELMET_HEADERS));
      expect(res.headers['x-powered-by']).toBeUndefined();
      // Turned off on purpose (the Swagger UI needs inline scripts).
      expect(res.headers['content-security-policy']).toBeUndefined();
    });

    it('puts the security headers on a rejected body too', async () => {
      const res = await t
        .http()
        .post(`${API}/tags`)
        .set('Authorization', t.auth.editor)
        .set('Content-Type', 'application/json')
        .send('{"name": ');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody('rest_invalid_json', 400));
      expect(res.headers).toEqual(expect.objectContaining(HELMET_HEADERS));
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it('refuses a body nested past 64 levels with 400 (the recursive validation never overflows)', async () => {
      /** An event body whose ignored `extra` field adds `levels` nested arrays below the top object. */
      const nested = (levels: number) =>
        `{"title":"Deep","start_date":"${dayAt(5, '10:00:00')}","end_date":"${dayAt(5, '12:00:00')}","extra":${'['.repeat(levels)}${']'.repeat(levels)}}`;
      const post = (body: string) =>
        t
          .http()
          .post(`${API}/events`)
          .set('Authorization', t.auth.author)
          .set('Content-Type', 'application/json')
          .send(body);
      const total = async () =>
        (await t.http().get(`${API}/events`).set('Authorization', t.auth.author).expect(200)).body
          .total as number;
      const before = await total();
      for (const body of [
        nested(64),
        '['.repeat(3000) + ']'.repeat(3000),
        '{"a":'.repeat(3000) + '1' + '}'.repeat(3000),
      ]) {
        const refused = await post(body);
        expect(refused.status).toBe(400);
        expect(refused.body).toEqual(errorBody('rest_invalid_json', 400));
      }
      expect(await total()).toBe(before);
      // 64 levels in all (the top object and 63 arrays) are a body like any other.
      expect((await post(nested(63))).status).toBe(201);
    });

    it('answers no CORS headers when CORS_ORIGINS is unset', async () => {
      const get = await t.http().get(`${API}/events`).set('Origin', ORIGIN).expect(200);
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
      expect(get.headers['access-control-expose-headers']).toBeUndefined();
      const preflight = await t
        .http()
        .options(`${API}/events`)
        .set('Origin', ORIGIN)
        .set('Access-Control-Request-Method', 'POST');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
    });

    describe('event passwords and their hashes', () => {
      let id: number;
      let hash: string;
      let createdBody: unknown;
      let api: ReturnType<typeof eventRequests>;

      beforeAll(async () => {
        api = eventRequests(t);
        await t.reset();
        const created = await api.create(eventBody({ password: PASSWORD })).expect(201);
        id = created.body.id as number;
        expect(created.body.password_protected).toBe(true);
        createdBody = created.body;
        const rows = (await t.dataSource.query(
          `SELECT password_hash AS h FROM events WHERE id = ${id}`,
        )) as Array<{ h: string }>;
        hash = rows[0].h;
        expect(hash).toMatch(/^[0-9a-f]{32}:[0-9a-f]{64}$/);
      });

      /** Neither the hash (or either half), its names, nor the password appear. */
      const expectNoSecrets = (body: unknown) => {
        const json = JSON.stringify(body);
        const [salt, digest] = hash.split(':');
        for (const secret of [hash, salt, digest, 'passwordHash', 'password_hash'])
          expect({ secret, found: json.includes(secret) }).toEqual({ secret, found: false });
        // Not even in list links (docs/api.md §5: `password` is never repeated in a URL).
        expect(json).not.toContain(PASSWORD);
        expect(json).not.toMatch(/"password"\s*:/);
      };

      it('never answers the hash: create, reads, lists, update, delete', async () => {
        const bodies: unknown[] = [createdBody];
        const ok = async (req: PromiseLike<{ status: number; body: unknown }>, status = 200) => {
          const res = await req;
          expect(res.status).toBe(status);
          bodies.push(res.body);
          return res.body as Record<string, any>;
        };
        // The owner and an administrator see the event in full, with the edit context too.
        const own = await ok(api.get(`/events/${id}`, 'author'));
        expect(own.description).toBe('');
        await ok(api.get(`/events/${id}?context=edit`, 'author'));
        await ok(api.get(`/events/${id}?context=edit`, 'administrator'));
        // Anyone else needs the password.
        const locked = await api.get(`/events/${id}`).expect(403);
        expect(locked.body).toEqual(errorBody('event-password-protected', 403));
        bodies.push(locked.body);
        await ok(api.get(`/events/${id}?password=${PASSWORD}`));
        await ok(api.get(`/events/${id}?password=wrong`), 403);
        // Lists: blanked without the password, in full with it, and for the owner.
        const blanked = await ok(api.get('/events'));
        expect(blanked.events.map((e: { id: number }) => e.id)).toEqual([id]);
        expect(blanked.events[0].password_protected).toBe(true);
        await ok(api.get(`/events?password=${PASSWORD}`));
        await ok(api.get('/events?status=publish,draft', 'administrator'));
        await ok(api.get(`/events?include=${id}&context=edit`, 'author'));
        // Writes answer the record too.
        await ok(api.update(id, { title: 'Nog steeds beveiligd' }));
        await ok(api.update(id, { password: `${PASSWORD}!` }));
        await ok(api.remove(`/events/${id}`));
        await ok(api.get(`/events/${id}`, 'administrator'));

        expect(bodies).toHaveLength(15);
        for (const body of bodies) expectNoSecrets(body);
      });
    });

    describe('error bodies on an unexpected database error', () => {
      const TABLE = 'venue_translations';
      const rename = (from: string, to: string) =>
        t.dataSource.query(`ALTER TABLE ${from} RENAME TO ${to}`);

      afterAll(() => rename(`${TABLE}_gone`, TABLE).catch(() => undefined));

      it('answers exactly the documented 500: no stack, SQL, table or file names', async () => {
        await t.reset();
        const api = eventRequests(t);
        const venue = await api.createVenue({ venue: 'Zaal' }).expect(201);
        await rename(TABLE, `${TABLE}_gone`);

        const answers = await Promise.all([
          t.http().get(`${API}/venues?language=en`),
          t.http().get(`${API}/venues/${venue.body.id as number}`),
          api.createVenue({ venue: 'Nog een zaal' }),
        ]);
        expect(answers.map((res) => res.status)).toEqual([500, 500, 500]);
        const [en, nl, write] = answers.map((res) => res.body as unknown);
        expect(en).toEqual({
          code: 'rest_internal_error',
          message: 'An internal error occurred.',
          data: { status: 500 },
        });
        expect(nl).toEqual({
          code: 'rest_internal_error',
          message: 'Er is een interne fout opgetreden.',
          data: { status: 500 },
        });
        expect(write).toEqual(nl);
        for (const res of answers) {
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          expect(res.text).not.toMatch(
            /SELECT|INSERT|venue_translations|sqlite|mysql|QueryFailed|\bat \S|\.ts\b|\.js\b|\/src\/|node_modules|\n/i,
          );
        }

        await rename(`${TABLE}_gone`, TABLE);
        await t.http().get(`${API}/venues`).expect(200);
      });
    });
  });

  describe('CORS with CORS_ORIGINS set', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ CORS_ORIGINS: `${ORIGIN}, https://other-dashboard.example` });
    });
    afterAll(() => t?.close());

    it('allows a listed origin, exposing the list and paging headers', async () => {
      const res = await t.http().get(`${API}/events`).set('Origin', ORIGIN).expect(200);
      expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(res.headers.vary).toBe('Origin, Accept-Language, Authorization');
      expect(res.headers['access-control-expose-headers']).toBe(
        'X-Total,X-TotalPages,Link,X-Request-Id,Retry-After,Location,ETag',
      );
      expect(res.headers).toEqual(expect.objectContaining(HELMET_HEADERS));
    });

    it('answers a preflight from a listed origin', async () => {
      const res = await t
        .http()
        .options(`${API}/events/1`)
        .set('Origin', 'https://other-dashboard.example')
        .set('Access-Control-Request-Method', 'PATCH')
        .set('Access-Control-Request-Headers', 'authorization,content-type')
        .expect(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://other-dashboard.example');
      expect(res.headers['access-control-allow-methods']).toMatch(/PATCH/);
      expect(res.headers['access-control-allow-headers']).toBe('authorization,content-type');
    });

    it('gives any other origin no CORS headers', async () => {
      const res = await t.http().get(`${API}/events`).set('Origin', OTHER_ORIGIN).expect(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await t
        .http()
        .options(`${API}/events`)
        .set('Origin', OTHER_ORIGIN)
        .set('Access-Control-Request-Method', 'POST');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('CORS_ORIGINS=*', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ CORS_ORIGINS: '*' });
    });
    afterAll(() => t?.close());

    it('allows any origin', async () => {
      const res = await t.http().get(`${API}/tags`).set('Origin', OTHER_ORIGIN).expect(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });
  });

  describe('logs at LOG_LEVEL=info', () => {
    let t: TestApp;
    let written: string[];
    const spies: jest.SpyInstance[] = [];

    beforeAll(async () => {
      written = [];
      // The JSON log lines the logger writes to stdout.
      const text = (data: unknown) =>
        Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
      spies.push(
        jest.spyOn(process.stdout, 'write').mockImplementation((data: unknown) => {
          written.push(text(data));
          return true;
        }),
      );
      t = await createTestApp({ LOG_LEVEL: 'info', CORS_ORIGINS: '' });
    });
    afterAll(async () => {
      await t?.close();
      for (const spy of spies) spy.mockRestore();
    });

    it('logs each request line but never the bearer token or an event password', async () => {
      const api = eventRequests(t);
      const token = t.auth.author.replace(/^Bearer /, '');
      const created = await api.create(eventBody({ password: PASSWORD })).expect(201);
      const id = created.body.id as number;
      await api.get(`/events/${id}?password=${PASSWORD}`).expect(200);
      await api.get(`/events/${id}?password=${PASSWORD}`, 'author').expect(200);
      await api.get(`/events?password=${PASSWORD}&search=Beveiligd`).expect(200);
      await api.update(id, { password: PASSWORD, title: 'Anders' }).expect(200);
      await api.get(`/events/${id}?password=wrong-${PASSWORD}`).expect(403);
      // A token in a query string (a client mistake) stays out of the logs too.
      await api.get(`/events?access_token=${token}`).expect(200);
      await api.remove(`/events/${id}?password=${PASSWORD}`).expect(200);

      const logs = written.join('');
      const lines = logs
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { req?: { method: string; url: string } });
      const requestLines = lines
        .filter((line) => line.req)
        .map((line) => `${line.req!.method} ${line.req!.url}`);
      expect(requestLines).toEqual([
        `POST ${API}/events`,
        `GET ${API}/events/${id}`,
        `GET ${API}/events/${id}`,
        `GET ${API}/events`,
        `PATCH ${API}/events/${id}`,
        `GET ${API}/events/${id}`,
        `GET ${API}/events`,
        `DELETE ${API}/events/${id}`,
      ]);
      const [, , signature] = token.split('.');
      for (const secret of [token, signature, PASSWORD, 'Bearer'])
        expect({ secret, logged: logs.includes(secret) }).toEqual({ secret, logged: false });
    });

    it('logs requests whose body is refused before any route runs', async () => {
      const before = written.length;
      const send = (type: string, body: string) =>
        t
          .http()
          .post(`${API}/events`)
          .set('Authorization', t.auth.author)
          .set('Content-Type', type)
          .set('X-Request-Id', `refused-${type.length}`)
          .send(body);
      await send('application/json', '{"title":').expect(400);
      await send('text/plain', 'title').expect(415);
      const logged = written
        .slice(before)
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { req?: { id: string }; res?: { statusCode: number } })
        .filter((line) => line.req)
        .map((line) => [line.req!.id, line.res!.statusCode]);
      expect(logged).toEqual([
        ['refused-16', 400],
        ['refused-10', 415],
      ]);
    });
  });

  describe('logs at LOG_LEVEL=warn', () => {
    let t: TestApp;
    let written: string[];
    let spy: jest.SpyInstance;

    beforeAll(async () => {
      written = [];
      spy = jest.spyOn(process.stdout, 'write').mockImplementation((data: unknown) => {
        written.push(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
        return true;
      });
      t = await createTestApp({ LOG_LEVEL: 'warn', CORS_ORIGINS: '' });
    });
    afterAll(async () => {
      await t?.close();
      spy.mockRestore();
    });

    it('has a request line for a failed response only', async () => {
      const api = eventRequests(t);
      await api.create(eventBody({})).expect(201);
      await api.get('/events/999999').expect(404);
      jest.spyOn(t.app.get(EventsService), 'list').mockRejectedValueOnce(new Error('boom'));
      await t.http().get(`${API}/events`).set('X-Request-Id', 'failed-list').expect(500);
      await api.get('/events').expect(200);
      const requestLines = written
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { req?: object; res?: object; msg: string })
        .filter((line) => line.req)
        .map(({ req, res, msg }) => ({ req, res, msg }));
      expect(requestLines).toEqual([
        {
          req: { id: 'failed-list', method: 'GET', url: `${API}/events` },
          res: { statusCode: 500 },
          msg: 'request errored',
        },
      ]);
    });
  });
});
