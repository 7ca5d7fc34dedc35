import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ResponseValidator } from './helpers/openapi-responses';
import { API, createTestApp, TestApp } from './helpers/test-app';

/*
 * The OpenAPI document at {api}/doc is what clients are generated from:
 * Redocly's recommended rules pass with no error, and the response check
 * every e2e test runs (helpers/openapi-responses.ts) reports each kind of drift.
 */

type Schema = Record<string, any>;

const onSqlite = process.env.TEST_ENGINE === 'mysql' ? describe.skip : describe;

describe('/doc', () => {
  let t: TestApp;
  let doc: Schema;
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http().get(`${API}/doc`).expect(200)).body;
  });
  afterAll(() => t?.close());

  onSqlite('Redocly lint', () => {
    it('finds no error with the recommended rules (redocly.yaml)', () => {
      const dir = mkdtempSync(join(tmpdir(), 'calendar-doc-'));
      try {
        const file = join(dir, 'openapi.json');
        writeFileSync(file, JSON.stringify(doc));
        const root = resolve(__dirname, '../..');
        const run = spawnSync(
          process.execPath,
          [
            require.resolve('@redocly/cli/bin/cli.js'),
            'lint',
            file,
            '--config',
            join(root, 'redocly.yaml'),
          ],
          { cwd: root, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off' } },
        );
        const output = `${run.stdout}${run.stderr}`;
        expect(output).toMatch(/Woohoo! Your API description is valid|validated in/);
        expect({ status: run.status, errors: output.match(/error\s+\S+.*$/gm) ?? [] }).toEqual({
          status: 0,
          errors: [],
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 120000);
  });

  it('asks for a token on writes and takes an optional one on public reads', () => {
    expect(doc.paths['/events'].post.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/events/{id}'].delete.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/events'].get.security).toEqual([{}, { bearer: [] }]);
    expect(doc.paths['/events/by-slug/{slug}'].get.security).toEqual([{}, { bearer: [] }]);
  });

  it('lists every error status with the error body and no catch-all', () => {
    const read = doc.paths['/events/{id}'].get.responses;
    expect(Object.keys(read)).toEqual([
      '200',
      '304',
      '400',
      '401',
      '403',
      '404',
      '410',
      '429',
      '500',
      '503',
    ]);
    const create = doc.paths['/events'].post.responses;
    expect(Object.keys(create)).toEqual([
      '201',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(doc.components.responses.Error404).toEqual({
      description: expect.stringContaining('`rest-event-not-found`'),
      headers: expect.objectContaining({
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
      }),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
    });
    expect(doc.components.responses.Error401.headers['WWW-Authenticate']).toBeDefined();
    expect(doc.components.responses.Error429.headers['Retry-After']).toBeDefined();
  });

  it('declares conditional requests (docs/api.md §11) on every read and single-record write', () => {
    const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
    for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
      if (!item.get) continue;
      const names = (item.get.parameters as Schema[]).map((p) => `${p.in}:${p.name}`);
      expect([path, names.filter((n) => n === 'header:If-None-Match')]).toEqual([
        path,
        ['header:If-None-Match'],
      ]);
      expect([path, item.get.responses['200'].headers]).toEqual([
        path,
        expect.objectContaining({
          ETag: header('ETag'),
          'Cache-Control': header('Cache-Control'),
          Vary: header('Vary'),
        }),
      ]);
      expect([path, Object.keys(item.get.responses['304'].headers)]).toEqual([
        path,
        expect.arrayContaining(['ETag', 'Cache-Control', 'Vary']),
      ]);
    }
    expect(Object.keys(doc.paths['/events'].get.responses['304'].headers)).toEqual(
      expect.arrayContaining(['X-Total', 'X-TotalPages', 'Link']),
    );
    for (const [path, method] of [
      ['/events/{id}', 'put'],
      ['/events/by-slug/{slug}', 'post'],
      ['/venues/{id}', 'patch'],
      ['/organizers/by-slug/{slug}', 'delete'],
      ['/categories/{id}', 'delete'],
      ['/tags/{id}', 'put'],
    ]) {
      const operation = doc.paths[path][method];
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['412', '428']));
      expect(operation.responses['200'].headers.ETag).toEqual(header('WriteETag'));
      expect(operation.parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'If-Match' })]),
      );
    }
    // Creates take no If-Match but answer with an ETag; the webhooks' own writes neither.
    expect(Object.keys(doc.paths['/events'].post.responses)).not.toContain('412');
    expect(doc.paths['/tags'].post.responses['201'].headers.ETag).toEqual(header('WriteETag'));
    expect(doc.paths['/webhooks'].post.responses['201'].headers.ETag).toBeUndefined();
    expect(Object.keys(doc.paths['/webhooks/{id}'].patch.responses)).not.toContain('412');
    expect(doc.components.responses.Error412.description).toContain('`rest_precondition_failed`');
    expect(doc.components.responses.Error428.description).toContain('`rest_precondition_required`');
  });

  it('declares the list, create and request-ID headers', () => {
    const list = doc.paths['/events'].get.responses['200'].headers;
    expect(Object.keys(list)).toEqual(
      expect.arrayContaining(['X-Total', 'X-TotalPages', 'Link', 'X-Request-Id']),
    );
    expect(doc.paths['/venues'].post.responses['201'].headers.Location).toEqual({
      $ref: '#/components/headers/Location',
    });
    expect(doc.components.headers['X-Total']).toMatchObject({
      required: true,
      schema: { type: 'integer' },
    });
  });

  it('types IDs as integers, dates with a format, inputs with every shape they take', () => {
    const documented = JSON.stringify(doc);
    const idParam = doc.paths['/events/{id}'].get.parameters.find((p: Schema) => p.name === 'id');
    expect(idParam.schema.type).toBe('integer');
    expect(doc.components.schemas.EventRecordDto.properties.id.type).toBe('integer');
    expect(doc.components.schemas.TermRecordDto.properties.parent.type).toBe('integer');
    expect(doc.components.schemas.EventRecordDto.properties.start_date).toMatchObject({
      pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
      example: '2030-06-01 20:00:00',
    });
    expect(doc.components.schemas.VenueRecordDto.properties.geo_lat.type).toBe('number');
    for (const name of ['CreateEventDto', 'UpdateVenueDto', 'CreateOrganizerDto']) {
      const image = doc.components.schemas[name].properties.image;
      expect(image.oneOf.map((s: Schema) => s.type)).toEqual(['string', 'integer', 'boolean']);
      expect(doc.components.schemas[name].properties.date.oneOf.map((s: Schema) => s.type)).toEqual(
        ['string', 'integer'],
      );
    }
    const include = doc.paths['/events'].get.parameters.find((p: Schema) => p.name === 'include');
    expect(include).toMatchObject({
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'integer' } },
    });
    expect(documented).not.toContain('"type":"number","description":"ID');
  });

  it('declares Retry-After as sent on every 429 and 503', () => {
    expect(doc.components.headers['Retry-After']).toMatchObject({
      required: true,
      schema: { type: 'integer' },
    });
    for (const status of [429, 503]) {
      expect(doc.components.responses[`Error${status}`].headers['Retry-After']).toEqual({
        $ref: '#/components/headers/Retry-After',
      });
    }
  });

  it('declares the feed templates after the JSON ones they share a prefix with', () => {
    // Prism scores `/events/{id}` and `/events/{id}.ics` alike for `/events/1.ics` and takes the
    // later one; `/events/1` matches only the JSON template (verified with a Prism 5 proxy).
    const paths = Object.keys(doc.paths);
    for (const [json, feed] of [
      ['/events/{id}', '/events/{id}.ics'],
      ['/events/by-slug/{slug}', '/events/by-slug/{slug}.ics'],
    ]) {
      expect(paths.indexOf(json)).toBeGreaterThanOrEqual(0);
      expect(paths.indexOf(feed)).toBeGreaterThan(paths.indexOf(json));
    }
    const suffixed = paths.filter((p) => /\{[^}/]+\}[^/{}]+$/.test(p));
    expect(paths.slice(-suffixed.length)).toEqual(suffixed);
  });

  it('declares HEAD beside every GET: the same parameters and headers, no body', () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
      if (!item.get) continue;
      expect([path, item.head?.operationId]).toEqual([path, `${item.get.operationId}_head`]);
      expect(item.head.parameters).toEqual(item.get.parameters);
      for (const [status, response] of Object.entries(item.head.responses as Schema)) {
        const resolved = response.$ref
          ? doc.components.responses[(response.$ref as string).split('/').pop()!]
          : response;
        const get = item.get.responses[status];
        const getResolved = get.$ref
          ? doc.components.responses[(get.$ref as string).split('/').pop()!]
          : get;
        expect([path, status, resolved.content]).toEqual([path, status, undefined]);
        expect([path, status, resolved.headers]).toEqual([path, status, getResolved.headers]);
      }
    }
  });

  it('states the limits the service enforces in the schemas, not only in descriptions', () => {
    const schemas = doc.components.schemas as Record<string, Schema>;
    for (const name of ['CreateVenueDto', 'UpdateVenueDto']) {
      expect(schemas[name].properties.geo_lat).toMatchObject({ minimum: -90, maximum: 90 });
      expect(schemas[name].properties.geo_lng).toMatchObject({ minimum: -180, maximum: 180 });
    }
    for (const name of ['CreateWebhookDto', 'UpdateWebhookDto']) {
      expect(schemas[name].properties.url).toMatchObject({
        maxLength: 2048,
        pattern: '^[Hh][Tt][Tt][Pp][Ss]://',
      });
    }
    expect(schemas.CreateEventDto.properties.website).toMatchObject({
      maxLength: 2048,
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
    });
    const parameter = (path: string, name: string) =>
      (doc.paths[path].get.parameters as Schema[]).find((p) => p.name === name)!.schema;
    expect(parameter('/events', 'include')).toMatchObject({
      maxItems: 100,
      items: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    });
    expect(parameter('/events', 'geoloc_lat')).toMatchObject({ minimum: -90, maximum: 90 });
    expect(parameter('/changes', 'since')).toMatchObject({ maxLength: 255 });
    expect(parameter('/changes', 'per_page')).toMatchObject({ minimum: 1, maximum: 1000 });
    // Linked records and terms in event bodies: IDs in range, at most 100 in a list.
    const maxId = 2 ** 31 - 1;
    for (const name of ['CreateEventDto', 'UpdateEventDto']) {
      const { categories, venue, organizer } = schemas[name].properties;
      expect(categories.oneOf).toEqual([
        {
          type: 'array',
          maxItems: 100,
          items: { oneOf: [{ type: 'integer', minimum: 1, maximum: maxId }, { type: 'string' }] },
        },
        { type: 'string' },
        { type: 'integer', minimum: 0, maximum: maxId },
      ]);
      expect(venue.oneOf[0]).toEqual({ type: 'integer', minimum: 0, maximum: maxId });
      expect(venue.oneOf[1].properties.id).toEqual({ type: 'integer', minimum: 1, maximum: maxId });
      expect(organizer.oneOf[0]).toMatchObject({ type: 'array', maxItems: 100 });
    }
  });

  it('bounds every query parameter and every text, list and ID field of the write bodies', () => {
    const unbounded: string[] = [];
    const check = (where: string, schema: Schema, idName: boolean) => {
      if (schema.$ref) return;
      for (const branch of (schema.oneOf ?? []) as Schema[]) check(where, branch, idName);
      if (schema.type === 'string' && !schema.enum && !schema.format && !schema.pattern) {
        if (schema.maxLength === undefined) unbounded.push(`${where}: maxLength`);
      }
      if (schema.type === 'array') {
        if (schema.maxItems === undefined) unbounded.push(`${where}: maxItems`);
        if (schema.items) check(`${where}[]`, schema.items as Schema, idName);
      }
      if (schema.type === 'integer' && idName && schema.minimum === undefined)
        unbounded.push(`${where}: minimum`);
    };
    // Dates are checked by their form; page sizes over the maximum are capped, not refused.
    const EXEMPT = /(^|_)(date|before|after)$|^per_page$/;
    const ID = /^(include|exclude|venue|organizer|post_parent|parent|event|post|author|page)$/;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const p of (operation.parameters ?? []) as Schema[]) {
          if (p.in !== 'query' || EXEMPT.test(p.name as string)) continue;
          check(`${method} ${path} ${p.name}`, p.schema as Schema, ID.test(p.name as string));
        }
      }
    }
    // Linked records and terms are read by the service's own parsers (names, IDs, objects).
    const LINKS =
      /^(categories|tags|venue|organizer|date|date_utc|start_date|end_date|image|cost)$/;
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Schema>)) {
      if (!/^(Create|Update)/.test(name)) continue;
      for (const [field, property] of Object.entries((schema.properties ?? {}) as Schema)) {
        if (LINKS.test(field)) continue;
        check(`${name}.${field}`, property as Schema, ID.test(field));
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('gives currency_position no empty enum value and rest_missing_callback_param its array params', () => {
    const position = doc.components.schemas.CostDetailsDto.properties.currency_position;
    expect(position.enum).toBeUndefined();
    expect(position.pattern).toBe('^(prefix|postfix)?$');
    expect(doc.components.schemas.ErrorDataDto.properties.params.oneOf).toEqual([
      { type: 'array', items: { type: 'string' } },
      { type: 'object', additionalProperties: { type: 'string' } },
    ]);
  });

  it('describes the index and its own answer', () => {
    expect(doc.paths['/'].get.responses['200'].content['application/json'].schema).toMatchObject({
      required: ['namespace', 'routes', '_links'],
    });
    expect(doc.paths['/doc'].get.responses['200'].content['application/json'].schema).toMatchObject(
      {
        required: ['openapi', 'info', 'paths', 'components', 'servers'],
      },
    );
  });

  describe('the response check of every e2e test', () => {
    const response = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
      method: 'GET',
      url: `${API}/tags/1`,
      status,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-request-id': 'r1',
        etag: '"t"',
        'cache-control': 'no-cache, public',
        vary: 'Accept-Language, Authorization',
        ...headers,
      },
      body: Buffer.from(JSON.stringify(body)),
    });
    let validator: ResponseValidator;
    let tag: Schema;
    beforeAll(async () => {
      validator = new ResponseValidator(doc, API);
      await t.reset();
      await t
        .http()
        .post(`${API}/tags`)
        .set('Authorization', t.auth.editor)
        .send({ name: 'Jazz' })
        .expect(201);
      tag = (await t.http().get(`${API}/tags/1`).expect(200)).body;
    });

    it('accepts a documented response', () => {
      expect(validator.check(response(200, tag))).toEqual([]);
    });

    it('names the operation and status of an undeclared status', () => {
      expect(validator.check(response(418, tag))).toEqual([
        expect.stringMatching(
          /^GET \/calendar\/events\/v1\/tags\/1 → 418: status 418 is not declared for GET \/tags\/\{id\}/,
        ),
      ]);
    });

    it('names an undeclared field and a wrong type by their place in the body', () => {
      expect(validator.check(response(200, { ...tag, colour: 'red', count: '1' }))).toEqual(
        expect.arrayContaining([
          `GET ${API}/tags/1 → 200: GET /tags/{id} 200: body must NOT have additional properties (undeclared field "colour")`,
          `GET ${API}/tags/1 → 200: GET /tags/{id} 200: body/count must be integer`,
        ]),
      );
    });

    it('reports a missing required header and an undocumented route', () => {
      const { 'x-request-id': _id, ...headers } = response(200, tag).headers;
      expect(validator.check({ ...response(200, tag), headers })).toEqual([
        `GET ${API}/tags/1 → 200: GET /tags/{id} 200 declares header X-Request-Id, which is missing`,
      ]);
      expect(validator.check({ ...response(200, []), url: `${API}/colours` })).toEqual([
        `GET ${API}/colours → 200: no operation in /doc for GET /colours`,
      ]);
    });
  });
});
