import { AddressInfo } from 'node:net';
import { API, createTestApp, TestApp } from './helpers/test-app';

/*
 * Table-driven sweep of hostile input over every write field and list
 * parameter (issue: reliability, item 1). Every answer is a success or the
 * documented error (never a 5xx); a rejected write changes nothing; valid
 * unicode and SQL- or script-looking text round-trip unchanged.
 */

const HOSTILE: unknown[] = [
  null,
  0,
  -1,
  1.5,
  2 ** 31,
  1e308,
  '',
  ' ',
  'x'.repeat(300),
  '😀',
  '\u0000\u0007',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  [],
  [1, 'a'],
  {},
  { id: 'x' },
  true,
  'true',
  '2024-13-45',
  '1700000000',
  [null],
  [[]],
  { a: { b: {} } },
];

const KINDS = {
  events: {
    base: { title: 'T', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00' },
    fields: [
      'title',
      'start_date',
      'end_date',
      'timezone',
      'all_day',
      'cost',
      'website',
      'image',
      'categories',
      'tags',
      'venue',
      'organizer',
      'status',
      'author',
      'date',
      'date_utc',
      'slug',
      'password',
      'post_parent',
      'featured',
      'excerpt',
      'description',
      'recurrence',
    ],
  },
  venues: {
    base: { venue: 'V' },
    fields: [
      'venue',
      'address',
      'city',
      'geo_lat',
      'geo_lng',
      'website',
      'image',
      'status',
      'author',
      'date',
      'show_map',
      'slug',
      'zip',
    ],
  },
  organizers: {
    base: { organizer: 'O' },
    fields: [
      'organizer',
      'email',
      'website',
      'phone',
      'image',
      'status',
      'author',
      'date_utc',
      'slug',
    ],
  },
  categories: { base: { name: 'C' }, fields: ['name', 'slug', 'parent', 'description'] },
  tags: { base: { name: 'G' }, fields: ['name', 'slug', 'description'] },
} as const;

const LIST_PARAMS = [
  'page',
  'per_page',
  'search',
  'status',
  'start_date',
  'end_date',
  'starts_before',
  'ends_after',
  'strict_dates',
  'categories',
  'tags',
  'venue',
  'organizer',
  'include',
  'exclude',
  'featured',
  'geoloc',
  'geoloc_lat',
  'geoloc_lng',
  'geoloc_radius',
  'post_parent',
  'event',
  'has_events',
  'only_with_upcoming',
  'order',
  'orderby',
  'hide_empty',
  'parent',
  'slug',
  'context',
  'language',
  'password',
];
const QUERY_VALUES = [
  '',
  '-1',
  '0',
  'abc',
  '1,2,x',
  '9999999999999',
  '%',
  "'",
  '2024-02-30',
  'x'.repeat(300),
  '😀',
  '1e5',
];

type Kind = keyof typeof KINDS;

describe('bad-input sweep', () => {
  let t: TestApp;
  let base: string;
  let token: string;
  const tally = { requests: 0, fiveHundreds: [] as string[], badShapes: [] as string[] };

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}${API}`;
    token = t.auth.administrator;
  });
  afterAll(() => t?.close());

  async function send(method: string, path: string, body?: unknown) {
    tally.requests += 1;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: token, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, any>;
    const label = `${method} ${path} ${JSON.stringify(body)?.slice(0, 120)}`;
    if (res.status >= 500) tally.fiveHundreds.push(`${label} → ${res.status}`);
    if (res.status >= 400) {
      const shaped =
        typeof json.code === 'string' &&
        typeof json.message === 'string' &&
        json.data?.status === res.status;
      const leaks = /SELECT|INSERT|UPDATE |sqlite|mysql|at \S+ \(|node_modules/i.test(
        JSON.stringify(json),
      );
      if (!shaped || leaks)
        tally.badShapes.push(`${label} → ${JSON.stringify(json).slice(0, 200)}`);
    }
    return { status: res.status, json };
  }

  const rowCount = (kind: Kind) =>
    t.dataSource
      .query(
        `SELECT COUNT(*) AS n FROM ${kind === 'categories' || kind === 'tags' ? 'terms' : kind}`,
      )
      .then((rows: Array<{ n: number | string }>) => Number(rows[0].n));

  // One test per field, so each stays well inside its time budget on a slow CI machine
  // (the whole events table is ~3,300 requests) and a failure names its field.
  describe.each(Object.keys(KINDS) as Kind[])('%s: hostile write fields', (kind) => {
    const { base: valid, fields } = KINDS[kind];
    let id: number;

    beforeAll(async () => {
      const created = await send('POST', `/${kind}`, valid);
      expect(created.status).toBe(201);
      id = created.json.id as number;
    });

    it.each([...fields])(
      '%s gives 2xx or the documented 4xx, and a 4xx writes nothing',
      async (field) => {
        const fiveHundreds = tally.fiveHundreds.length;
        const badShapes = tally.badShapes.length;
        for (const [n, value] of HOSTILE.entries()) {
          const body: Record<string, unknown> = { ...valid, [field]: value };
          if ((kind === 'categories' || kind === 'tags') && field !== 'name')
            body.name = `N-${field}-${n}`;
          const before = await rowCount(kind);
          const create = await send('POST', `/${kind}`, body);
          if (create.status >= 400)
            expect({ field, value, rows: await rowCount(kind) }).toEqual({
              field,
              value,
              rows: before,
            });

          const snapshot = await send('GET', `/${kind}/${id}`);
          const update = await send('PATCH', `/${kind}/${id}`, { [field]: value });
          if (update.status >= 400) {
            const after = await send('GET', `/${kind}/${id}`);
            expect({ field, value, record: after.json }).toEqual({
              field,
              value,
              record: snapshot.json,
            });
          }
        }
        expect(tally.fiveHundreds.slice(fiveHundreds)).toEqual([]);
        expect(tally.badShapes.slice(badShapes)).toEqual([]);
      },
    );
  });

  describe.each(Object.keys(KINDS) as Kind[])('%s: hostile list parameters', (kind) => {
    it.each(LIST_PARAMS)('%s gives 200 or the documented 4xx', async (param) => {
      const fiveHundreds = tally.fiveHundreds.length;
      const badShapes = tally.badShapes.length;
      for (const value of QUERY_VALUES) {
        const v = encodeURIComponent(value);
        await send('GET', `/${kind}?${param}=${v}`);
        await send('GET', `/${kind}?${param}[]=${v}&${param}[]=1`);
      }
      await send('GET', `/${kind}?${param}[a][b]=1`);
      expect(tally.fiveHundreds.slice(fiveHundreds)).toEqual([]);
      expect(tally.badShapes.slice(badShapes)).toEqual([]);
    });
  });

  it('round-trips unicode and SQL- or script-looking text unchanged', async () => {
    const texts = [
      "Zoë's café 😀 — 東京",
      "'; DROP TABLE events; --",
      '<script>alert("x")</script>',
      'a % b _ c \\ d',
    ];
    for (const text of texts) {
      const event = await send('POST', '/events', {
        ...KINDS.events.base,
        title: text,
        description: text,
      });
      expect(event.status).toBe(201);
      expect([event.json.title, event.json.description]).toEqual([text, text]);
      const venue = await send('POST', '/venues', { venue: text, address: text });
      expect([venue.json.venue, venue.json.address]).toEqual([text, text]);
      const name = `${text} ${texts.indexOf(text)}`;
      const tag = await send('POST', '/tags', { name });
      expect(tag.json.name).toBe(name);
    }
    const found = await send(
      'GET',
      `/events?search=${encodeURIComponent('DROP TABLE')}&start_date=2029-12-01&end_date=2030-12-31`,
    );
    expect(found.json.events.map((e: { title: string }) => e.title)).toEqual([
      "'; DROP TABLE events; --",
    ]);
  });

  afterAll(() => {
    // The figure for docs/reliability.md.
    process.stdout.write(
      `bad-input sweep (${process.env.TEST_ENGINE ?? 'sqlite'}): ${tally.requests} requests, ${tally.fiveHundreds.length} 5xx\n`,
    );
  });
});
