import fc from 'fast-check';
import type { Response } from 'supertest';
import { API, createTestApp, TestApp, UserName } from '../helpers/test-app';

/*
 * Property-based fuzzing of every write body and list query of the five
 * resources (issue: reliability). Bodies mix valid values of the documented
 * fields with hostile ones (any JSON value, unicode, control characters, huge
 * numbers, nesting) plus unknown keys; list queries use the documented
 * parameter names with arbitrary values, arrays and nested objects.
 *
 * Properties: never a 5xx; every 4xx is error body (docs/api.md §8) with
 * data.status equal to the HTTP status and nothing internal in it; a 4xx
 * write changes nothing (row counts of every table, and the target record of
 * an update); a list request never writes.
 *
 * The seed is fixed (override with FUZZ_SEED) and printed, so a failure can be
 * replayed; fast-check prints the shrunk counterexample.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 50);

type Kind = 'events' | 'venues' | 'organizers' | 'categories' | 'tags';
const KINDS: Kind[] = ['events', 'venues', 'organizers', 'categories', 'tags'];

/** Every table a write may touch (data_version, a cache counter, aside). */
const TABLES = [
  'events',
  'event_translations',
  'event_terms',
  'event_organizers',
  'venues',
  'venue_translations',
  'organizers',
  'organizer_translations',
  'terms',
  'term_translations',
];

// ---------------------------------------------------------------- values

const hugeNumber = fc.constantFrom(
  1e308,
  -1e308,
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 53 + 1,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_VALUE,
  -0,
  0,
  -1,
  0.5,
);
const controlString = fc.string({
  unit: fc.constantFrom(
    '\u0000',
    '\u0007',
    '\b',
    '\t',
    '\n',
    '\r',
    '\u001b',
    '\u007f',
    '\u2028',
    'a',
  ),
  maxLength: 20,
});
const hostileText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  // Any code point, lone surrogates included.
  fc.string({ unit: 'binary', maxLength: 40 }),
  controlString,
  fc.constantFrom(
    '',
    ' ',
    '😀👩‍👩‍👧‍👦🇳🇱',
    'Zoë — 東京 ∑ ﷽',
    "' OR 1=1 --",
    '"; DROP TABLE events; --',
    '<script>alert(1)</script>',
    '%',
    '_',
    '\\',
    '${jndi:ldap://x}',
    '__proto__',
    'constructor',
    'NaN',
    'Infinity',
    '1e309',
    '-0',
    '2024-02-30',
    '2024-13-45 25:61:61',
    '0000-00-00 00:00:00',
    '9999-12-31 23:59:59',
    '99999999999999999999',
    'true',
    'yes',
    'null',
    '1,2,x',
    'x'.repeat(201),
    'x'.repeat(256),
    'é'.repeat(201),
    '😀'.repeat(201),
    'x'.repeat(2049),
  ),
);
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ maxDepth: 2, maxKeys: 4 }),
  hostileText,
  hugeNumber,
  fc.double(),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.oneof(fc.integer({ min: -2, max: 5 }), hostileText, fc.constant(null)), {
    maxLength: 4,
  }),
  fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 101, maxLength: 120 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.anything({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.constant({ id: 'x' }),
  fc.constant([[[]]]),
);

const text = (max = 30) => fc.string({ unit: 'grapheme', minLength: 1, maxLength: max });
/** Dates between `from` and `to` (years) in every accepted input form. */
function dateInput(from: number, to: number): fc.Arbitrary<string> {
  const wire = fc
    .date({
      min: new Date(Date.UTC(from, 0, 1)),
      max: new Date(Date.UTC(to, 0, 1)),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString().slice(0, 19).replace('T', ' '));
  return fc.oneof(
    wire,
    wire.map((d) => d.slice(0, 10)),
    wire.map((d) => `${d.replace(' ', 'T')}+02:00`),
    fc.integer({ min: Date.UTC(from, 0, 2) / 1000, max: Date.UTC(to, 0, 1) / 1000 }).map(String),
  );
}
const flag = fc.constantFrom(true, false, 1, 0, 'true', 'false', 'yes', 'no');
const smallId = fc.integer({ min: 1, max: 6 });
const status = fc.constantFrom('publish', 'future', 'draft', 'pending', 'private', 'trash');
const url = fc.constantFrom('https://example.org/', 'http://example.org/a/b.png?x=1', '');
const idList = fc.oneof(
  smallId,
  fc.array(smallId, { maxLength: 3 }),
  fc.array(smallId, { maxLength: 3 }).map((ids) => ids.join(',')),
);
const termInput = fc.oneof(
  idList,
  fc.array(fc.oneof(smallId, text(20)), { maxLength: 3 }),
  text(20),
);

const COMMON: Record<string, fc.Arbitrary<unknown>> = {
  description: text(80),
  excerpt: text(40),
  slug: fc.stringMatching(/^[a-z0-9-]{1,20}$/),
  status,
  author: smallId,
  date: dateInput(2000, 2040),
  date_utc: dateInput(2000, 2040),
  image: fc.oneof(url, smallId),
  language: fc.constantFrom('nl', 'en'),
};

/** Valid-looking values of each resource's documented write fields (docs/api.md §6). */
const FIELDS: Record<Kind, Record<string, fc.Arbitrary<unknown>>> = {
  events: {
    ...COMMON,
    title: text(40),
    timezone: fc.constantFrom('UTC', 'Europe/Amsterdam', 'America/New_York', 'UTC+2', 'UTC-5:30'),
    all_day: flag,
    // Starts before 2035 and ends after it, so valid dates are mostly a valid pair.
    start_date: dateInput(2000, 2035),
    end_date: dateInput(2035, 2040),
    cost: fc.oneof(
      fc.constantFrom('20$', '€10', '10 - 20', '5,50', 'Free', ''),
      fc.array(fc.constantFrom('5', '€7', '0'), { maxLength: 3 }),
    ),
    website: url,
    show_map: flag,
    show_map_link: flag,
    hide_from_listings: flag,
    sticky: flag,
    featured: flag,
    ticketed: flag,
    post_parent: smallId,
    password: fc.oneof(text(12), fc.constant('')),
    categories: termInput,
    tags: termInput,
    venue: fc.oneof(
      smallId,
      fc.constantFrom(0, '', []),
      fc.record(
        { venue: text(20), address: text(20), city: text(10) },
        { requiredKeys: ['venue'] },
      ),
    ),
    organizer: fc.oneof(
      idList,
      fc.constant([]),
      fc.array(
        fc.oneof(
          fc.record({ id: smallId }),
          fc.record({ organizer: text(20), email: fc.constantFrom('a@b.nl', 'not-an-email') }),
        ),
        { maxLength: 2 },
      ),
    ),
  },
  venues: {
    ...COMMON,
    venue: text(40),
    address: text(),
    city: text(),
    country: text(),
    province: text(),
    state: text(),
    zip: text(10),
    stateprovince: text(),
    phone: text(15),
    website: url,
    geo_lat: fc.double({ min: -90, max: 90, noNaN: true }),
    geo_lng: fc.double({ min: -180, max: 180, noNaN: true }),
    show_map: flag,
    show_map_link: flag,
  },
  organizers: {
    ...COMMON,
    organizer: text(40),
    phone: text(15),
    website: url,
    email: fc.constantFrom('info@example.org', 'zoë@例え.jp', 'not-an-email'),
  },
  categories: {
    name: text(40),
    description: text(80),
    slug: COMMON.slug,
    parent: fc.oneof(fc.constant(0), smallId),
    language: COMMON.language,
  },
  tags: {
    name: text(40),
    description: text(80),
    slug: COMMON.slug,
    language: COMMON.language,
  },
};

/** The field a create needs, generated valid more often so creates also succeed. */
const REQUIRED: Record<Kind, string[]> = {
  events: ['title', 'start_date', 'end_date'],
  venues: ['venue'],
  organizers: ['organizer'],
  categories: ['name'],
  tags: ['name'],
};

/** Documented list parameters (docs/api.md §5) for each resource. */
const PAGE = ['page', 'per_page', 'language', 'context'];
const CONTENT_LIST = [...PAGE, 'search', 'status', 'event', 'has_events', 'only_with_upcoming'];
const TERM_LIST = [
  ...PAGE,
  'search',
  'exclude',
  'include',
  'order',
  'orderby',
  'hide_empty',
  'post',
  'event',
  'slug',
];

const LIST_PARAMS: Record<Kind, string[]> = {
  events: [
    ...PAGE,
    'search',
    'status',
    'start_date',
    'end_date',
    'starts_before',
    'starts_after',
    'ends_before',
    'ends_after',
    'strict_dates',
    'categories',
    'tags',
    'venue',
    'organizer',
    'featured',
    'include',
    'post_parent',
    'ticketed',
    'geoloc',
    'geoloc_lat',
    'geoloc_lng',
    'geoloc_radius',
    'password',
  ],
  venues: CONTENT_LIST,
  organizers: CONTENT_LIST,
  // Categories are hierarchical: tags take the same parameters but `parent`.
  categories: [...TERM_LIST, 'parent'],
  tags: TERM_LIST,
};

/**
 * A write body: the required fields (valid `requiredWeight` times as often as
 * hostile; creates only), up to four other documented fields, each valid or
 * hostile, and up to three unknown keys with hostile values.
 */
function bodyOf(kind: Kind, requiredWeight: number): fc.Arbitrary<Record<string, unknown>> {
  const fields = FIELDS[kind];
  const value = (name: string, weight = 1) =>
    fc.oneof({ arbitrary: fields[name], weight }, { arbitrary: hostile, weight: 1 });
  const required = requiredWeight > 1 ? REQUIRED[kind] : [];
  const optional = Object.keys(fields).filter((name) => !required.includes(name));
  const requiredBody = fc.record(
    Object.fromEntries(required.map((name) => [name, value(name, requiredWeight)])),
  );
  const otherBody = fc
    .subarray(optional, { maxLength: Math.min(4, optional.length) })
    .chain((names) => fc.record(Object.fromEntries(names.map((name) => [name, value(name)]))));
  return fc
    .tuple(
      requiredBody,
      otherBody,
      fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 12 }), hostile, { maxKeys: 3 }),
    )
    .map(([needed, other, unknown]) => ({ ...unknown, ...needed, ...other }));
}

/** `name=value`, `name[]=a&name[]=b` or `name[key]=value`, URL-encoded (or raw junk). */
const queryValue = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  controlString,
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1',
    '1,2',
    '1,x',
    'true',
    '2024-02-30',
    '9'.repeat(20),
    '1e5',
    'NaN',
    'x'.repeat(300),
  ),
);
function queryOf(kind: Kind): fc.Arbitrary<string> {
  const part = fc
    .tuple(
      fc.constantFrom(...LIST_PARAMS[kind]),
      fc.constantFrom('plain', 'array', 'nested', 'raw'),
      fc.array(queryValue, { minLength: 1, maxLength: 3 }),
      fc.string({ maxLength: 5 }),
    )
    .map(([name, form, values, key]) => {
      const enc = encodeURIComponent;
      if (form === 'array') return values.map((v) => `${name}[]=${enc(v)}`).join('&');
      if (form === 'nested') return `${name}[${enc(key)}]=${enc(values[0])}`;
      // Malformed escapes and separators, sent as they are.
      if (form === 'raw')
        return `${name}=${['%', '%zz', '%00', '%E0%A4%A', '&&=', '[', ']'][values[0].length % 7]}`;
      return `${name}=${enc(values[0])}`;
    });
  return fc.array(part, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('&'));
}

// ---------------------------------------------------------------- suite

describe('property-based fuzzing', () => {
  let t: TestApp;
  const tally = { requests: 0, fiveHundreds: 0, started: Date.now() };
  /** Answers per status class of the running property: the mix shows it reached both paths. */
  let classes: Record<string, number> = {};

  beforeAll(async () => {
    t = await createTestApp();
    // One fixed port, so the absolute URLs of a record compare equal between requests.
    await t.app.listen(0, '127.0.0.1');
    // Something to refer to: small IDs name existing records of every kind.
    const admin = t.auth.administrator;
    for (let i = 1; i <= 3; i++) {
      const records: Array<[string, Record<string, unknown>]> = [
        ['venues', { venue: `Zaal ${i}` }],
        ['organizers', { organizer: `Org ${i}` }],
        ['categories', { name: `Cat ${i}` }],
        ['tags', { name: `Tag ${i}` }],
        [
          'events',
          {
            title: `Event ${i}`,
            start_date: '2030-01-01 10:00',
            end_date: '2030-01-01 11:00',
            categories: `Cat ${i}`,
            tags: [`Tag ${i}`],
          },
        ],
      ];
      for (const [collection, body] of records) {
        await t
          .http()
          .post(`${API}/${collection}`)
          .set('Authorization', admin)
          .send(body)
          .expect(201);
      }
    }
  });
  afterAll(async () => {
    await t?.close();
    // The figures for docs/reliability.md.
    process.stdout.write(
      `property fuzz (${t?.engine}): seed ${SEED}, ${RUNS} runs per property, ${tally.requests} requests, ` +
        `${tally.fiveHundreds} 5xx, ${((Date.now() - tally.started) / 1000).toFixed(1)} s\n`,
    );
  });

  async function fingerprint(): Promise<Record<string, number>> {
    const select = TABLES.map((table) => `(SELECT COUNT(*) FROM ${table}) AS ${table}`).join(', ');
    const [row] = (await t.dataSource.query(`SELECT ${select}`)) as Array<Record<string, unknown>>;
    return Object.fromEntries(TABLES.map((table) => [table, Number(row[table])]));
  }

  /** Checks what holds for every answer: no 5xx, and a 4xx is the contract's error body. */
  function checkAnswer(res: Response, label: string): void {
    tally.requests += 1;
    const cls = `${String(res.status)[0]}xx`;
    classes[cls] = (classes[cls] ?? 0) + 1;
    if (res.status >= 500) tally.fiveHundreds += 1;
    if (res.status >= 500) {
      throw new Error(`${label} answered ${res.status}: ${JSON.stringify(res.body)}`);
    }
    if (res.status < 400) return;
    const body = res.body as { code?: unknown; message?: unknown; data?: { status?: unknown } };
    expect({ label, body }).toEqual({
      label,
      body: {
        code: expect.stringMatching(/^[a-z][a-z_-]*$/),
        message: expect.any(String),
        data: expect.objectContaining({ status: res.status }),
      },
    });
    expect(Object.keys(body).sort()).toEqual(['code', 'data', 'message']);
    expect(JSON.stringify(body)).not.toMatch(
      /SELECT |INSERT |UPDATE `|sqlite|mysql|QueryFailedError|TypeError|at \S+ \(|node_modules|\/src\//i,
    );
  }

  const send = (
    method: 'post' | 'patch' | 'get',
    path: string,
    body?: unknown,
    user?: UserName,
  ) => {
    let req = t.http()[method](`${API}${path}`);
    if (user) req = req.set('Authorization', t.auth[user]);
    return body === undefined ? req : req.send(body as object);
  };

  const params = { numRuns: RUNS, seed: SEED };
  beforeEach(() => {
    classes = {};
  });
  /** Both accepted and rejected input were generated (else the property proved little). */
  const expectBothOutcomes = () =>
    expect(classes).toEqual({ '2xx': expect.any(Number), '4xx': expect.any(Number) });

  describe.each(KINDS)('%s', (kind) => {
    it('create: never a 5xx, 4xx bodies as documented, a 4xx creates nothing', async () => {
      await fc.assert(
        fc.asyncProperty(bodyOf(kind, 4), async (body) => {
          const before = await fingerprint();
          const res = await send('post', `/${kind}`, body, 'administrator');
          checkAnswer(res, `POST /${kind}`);
          if (res.status >= 400) expect(await fingerprint()).toEqual(before);
          else expect(res.status).toBe(201);
        }),
        params,
      );
      expectBothOutcomes();
    });

    it('update: never a 5xx, 4xx bodies as documented, a 4xx changes nothing', async () => {
      const seed: Record<Kind, object> = {
        events: {
          title: 'Fuzz target',
          start_date: '2031-01-01 10:00',
          end_date: '2031-01-01 11:00',
        },
        venues: { venue: 'Fuzz target' },
        organizers: { organizer: 'Fuzz target' },
        categories: { name: 'Fuzz target' },
        tags: { name: 'Fuzz target' },
      };
      const created = await send('post', `/${kind}`, seed[kind], 'administrator').expect(201);
      const path = `/${kind}/${created.body.id as number}?context=edit`;
      await fc.assert(
        fc.asyncProperty(bodyOf(kind, 1), async (body) => {
          const before = await fingerprint();
          const record = await send('get', path, undefined, 'administrator').expect(200);
          const res = await send('patch', path, body, 'administrator');
          checkAnswer(res, `PATCH /${kind}/{id}`);
          if (res.status >= 400) {
            expect(await fingerprint()).toEqual(before);
            const after = await send('get', path, undefined, 'administrator').expect(200);
            expect(after.body).toEqual(record.body);
          } else {
            expect(res.status).toBe(200);
          }
        }),
        params,
      );
      expectBothOutcomes();
    });

    it('list: never a 5xx, 4xx bodies as documented, never a write', async () => {
      await fc.assert(
        fc.asyncProperty(
          queryOf(kind),
          fc.constantFrom<UserName | undefined>(undefined, 'administrator', 'author'),
          async (query, user) => {
            const before = await fingerprint();
            const res = await send('get', `/${kind}?${query}`, undefined, user);
            checkAnswer(res, `GET /${kind}?${query}`);
            if (res.status < 400) expect([200]).toContain(res.status);
            expect(await fingerprint()).toEqual(before);
          },
        ),
        params,
      );
      expectBothOutcomes();
    });
  });

  it('sent every request without a 5xx', () => {
    expect(tally.requests).toBeGreaterThanOrEqual(KINDS.length * 3 * RUNS);
    expect(tally.fiveHundreds).toBe(0);
  });
});
