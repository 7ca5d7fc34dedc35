import { parseIcalendar } from '../../src/imports/ical-import-parser';
import { eventInputOf } from '../../src/imports/import-event-input';
import type { ImportParseResult } from '../../src/imports/import-item';
import type { ImportReport, ImportTarget } from '../../src/imports/import-report';
import { ImportWriter } from '../../src/imports/import-writer';
import { type FeedEntry, feedPage } from './helpers/changes';
import { API, createTestApp, TestApp, USERS } from './helpers/test-app';
import { useWebhookApp } from './helpers/webhook-receiver';
import { recordMysqlStatements } from './helpers/mysql-statements';

/*
 * The import's set-based create of new events (EventBulkWrites.createMany,
 * docs/decisions.md): its events read back by ID, in lists, in the changes
 * feed and in webhook messages exactly as the same events created one by one
 * over HTTP, and its slugs are free within a chunk and against stored events.
 */

type Json = Record<string, any>;

const SOURCE = 'agenda';
const AMS = 'Europe/Amsterdam';
const TARGET: ImportTarget = {
  source: SOURCE,
  language: 'nl',
  status: 'publish',
  categoryIds: [],
  trashRemoved: false,
  authorId: USERS.administrator.id,
};
const noLinks = { venues: new Map(), organizers: new Map(), categories: new Map() };

/** A VEVENT of a Google-style feed; `lines` after its UID. */
const vevent = (uid: string, lines: string[]) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20261128T100000Z',
  ...lines,
  'END:VEVENT',
];
const feedOf = (vevents: string[][]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calendar test//bulk import//EN',
    `X-WR-TIMEZONE:${AMS}`,
    ...vevents.flat(),
    'END:VCALENDAR',
  ].join('\r\n');

/** One-off events with shared places, organizers and categories, a title twice, and a series between them. */
const FEED = feedOf([
  vevent('a1@example.org', [
    `DTSTART;TZID=${AMS}:20270302T190000`,
    `DTEND;TZID=${AMS}:20270302T213000`,
    'SUMMARY:Markt',
    'DESCRIPTION:Kramen\\, muziek\\nen eten.',
    'LOCATION:Vredenburg 1\\, Utrecht',
    'GEO:52.0929;5.1154',
    'ORGANIZER;CN=Ann de Vries:mailto:ann@example.org',
    'CATEGORIES:Markt,Muziek',
    'URL:https://example.org/markt',
  ]),
  vevent('a2@example.org', [
    `DTSTART;TZID=${AMS}:20270309T190000`,
    `DTEND;TZID=${AMS}:20270309T213000`,
    'SUMMARY:Markt',
    'LOCATION:Vredenburg 1\\, Utrecht',
    'GEO:52.0929;5.1154',
    'ORGANIZER;CN=Bob:mailto:bob@example.org',
    'CATEGORIES:Markt',
  ]),
  vevent('s1@example.org', [
    `DTSTART;TZID=${AMS}:20270303T200000`,
    `DTEND;TZID=${AMS}:20270303T220000`,
    'RRULE:FREQ=WEEKLY;COUNT=3',
    'SUMMARY:Koorrepetitie',
    'LOCATION:Muziekcentrum',
    'CATEGORIES:Muziek',
  ]),
  vevent('a3@example.org', [
    'DTSTART;VALUE=DATE:20270427',
    'DTEND;VALUE=DATE:20270428',
    'SUMMARY:Koningsdag',
    'CLASS:PRIVATE',
  ]),
  vevent('a4@example.org', [
    'DTSTART;TZID=America/New_York:20270310T180000',
    'DTEND;TZID=America/New_York:20270310T193000',
    'SUMMARY:Webinar; "open"',
    'ORGANIZER;CN=Ann de Vries:mailto:ann@example.org',
    'CATEGORIES:Lezing',
  ]),
]);

/** Volatile fields: IDs, and the times a write stamps (the test server's port, below). */
const VOLATILE = new Set([
  'id',
  'global_id',
  'global_id_lineage',
  'series_id',
  'post_parent',
  'date',
  'date_utc',
  'date_details',
  'date_utc_details',
  'modified',
  'modified_utc',
  'modified_details',
  'modified_utc_details',
  'changed_utc',
  'timestamp',
]);

/**
 * A record (or message) without what differs between two writes of the same
 * data: IDs and times, and `volatile` fields besides.
 */
function normalized(value: unknown, volatile: ReadonlySet<string> = VOLATILE): unknown {
  if (Array.isArray(value)) return value.map((v) => normalized(v, volatile));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [
        key,
        volatile.has(key) ? typeof v : normalized(v, volatile),
      ]),
    );
  }
  if (typeof value === 'string')
    return value
      .replace(/^http:\/\/127\.0\.0\.1:\d+/, 'http://HOST')
      .replace(/\/(events|venues|organizers)\/\d+/g, '/$1/N')
      .replace(/([?&](?:venue|organizer)=)\d+/g, '$1N');
  return value;
}
const sortedJson = (values: unknown[], volatile = VOLATILE) =>
  values.map((v) => JSON.stringify(normalized(v, volatile))).sort();
/**
 * A message renders its record when its transaction commits: created one by
 * one, an event's message shows its categories' counts as they climb; a
 * chunk's messages show them as the chunk leaves them (the feed, read after
 * both, shows the same counts).
 */
const MESSAGE_VOLATILE = new Set([...VOLATILE, 'count']);

describe('import bulk create', () => {
  const ctx = useWebhookApp({ SITE_TIMEZONE: AMS, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });

  const parse = (text: string): ImportParseResult => parseIcalendar(text, { defaultZone: AMS });
  const apply = (parsed: ImportParseResult): Promise<ImportReport> =>
    ctx.t.app.get(ImportWriter).apply(TARGET, parsed, undefined);
  const auth = () => ({ Host: 'api.test', Authorization: ctx.t.auth.administrator });
  const get = async (path: string): Promise<Json> =>
    (await ctx.t.http().get(`${API}${path}`).set(auth()).expect(200)).body as Json;
  /** The events holding a key of the source (the filter also lists their series' occurrences). */
  const sourceEvents = async (): Promise<Json[]> =>
    (
      (
        await get(
          `/events?external_source=${SOURCE}&start_date=2027-01-01&end_date=2027-12-31&per_page=50`,
        )
      ).events as Json[]
    ).filter((event) => event.external_id !== null);

  /** The feed's entries after `since` (all pages) and its cursor at the end. */
  const feedAfter = async (since?: string): Promise<{ entries: FeedEntry[]; cursor: string }> => {
    const entries: FeedEntry[] = [];
    let cursor = since;
    for (let page = 0; page < 50; page++) {
      const body = await feedPage(
        ctx.t,
        { ...(cursor ? { since: cursor } : {}), per_page: 100 },
        ctx.t.auth.administrator,
      );
      entries.push(...body.changes);
      cursor = body.next_cursor;
      if (!body.has_more) break;
    }
    return { entries, cursor: cursor as string };
  };

  /**
   * What a reader sees of the source's events: by ID (keyed by UID), the
   * list, the feed after `since`, and the messages after the first `seen`.
   */
  const snapshot = async (since: string, seen: number, messages: number) => {
    const list = await sourceEvents();
    const byUid: Record<string, unknown> = {};
    for (const event of list)
      byUid[event.external_id.id] = normalized(await get(`/events/${event.id}`));
    const { entries } = await feedAfter(since);
    const received = await ctx.receiver.waitFor('/bulk', seen + messages);
    return {
      byUid,
      list: list.map((event) => normalized(event)),
      feed: sortedJson(entries),
      webhooks: sortedJson(
        received.slice(seen).map((m) => JSON.parse(m.body)),
        MESSAGE_VOLATILE,
      ),
    };
  };

  it('gives the records, list, changes and webhook messages the same events created one by one over HTTP give', async () => {
    await ctx.t
      .http()
      .post(`${API}/webhooks`)
      .set(auth())
      .send({
        url: ctx.receiver.url('/bulk'),
        events: ['event.created', 'venue.created', 'organizer.created'],
      })
      .expect(201);
    const parsed = parse(FEED);
    expect(parsed.items).toHaveLength(5);
    const head = (await feedAfter()).cursor;

    // One by one over HTTP: the bodies the import writes, categories by name (the import finds them so).
    for (const item of parsed.items) {
      await ctx.t
        .http()
        .post(`${API}/events?language=nl`)
        .set(auth())
        .send({ ...eventInputOf(item, TARGET, noLinks), categories: item.categories })
        .expect(201);
    }
    const created = (await feedAfter(head)).entries.filter((e) =>
      ['event', 'venue', 'organizer'].includes(e.kind),
    ).length;
    const overHttp = await snapshot(head, 0, created);

    // Gone for good, so their keys and slugs are free again; the categories stay (their counts are back at 0).
    for (const event of await sourceEvents())
      await ctx.t.http().delete(`${API}/events/${event.id}?force=true`).set(auth()).expect(200);
    for (const kind of ['venues', 'organizers']) {
      const { body } = await ctx.t.http().get(`${API}/${kind}?per_page=50`).set(auth()).expect(200);
      for (const record of body[kind] as Json[])
        await ctx.t.http().delete(`${API}/${kind}/${record.id}?force=true`).set(auth()).expect(200);
    }
    const between = (await feedAfter(head)).cursor;

    expect(await apply(parsed)).toEqual({
      created: 5,
      updated: 0,
      unchanged: 0,
      trashed: 0,
      skipped: [],
    });
    const imported = await snapshot(between, created, created);
    expect(Object.keys(imported.byUid).sort()).toEqual(parsed.items.map((item) => item.uid).sort());
    expect(imported.byUid).toEqual(overHttp.byUid);
    expect(imported.list).toEqual(overHttp.list);
    expect(imported.feed).toEqual(overHttp.feed);
    expect(imported.webhooks).toEqual(overHttp.webhooks);
    // IDs ascend in the feed's order, the series written in its place among the one-off events.
    const ids = (await sourceEvents())
      .sort((a, b) => a.id - b.id)
      .map((event) => event.external_id.id);
    expect(ids).toEqual(parsed.items.map((item) => item.uid));
  });

  it('gives distinct slugs to events of one chunk that share a title and to those that clash with stored ones', async () => {
    const create = (title: string, slug?: string) =>
      ctx.t
        .http()
        .post(`${API}/events?language=nl`)
        .set(auth())
        .send({
          title,
          ...(slug ? { slug } : {}),
          start_date: '2027-05-01 10:00:00',
          end_date: '2027-05-01 11:00:00',
        })
        .expect(201);
    await create('Markt');
    await create('Iets anders', 'markt-3');
    const feed = feedOf(
      [1, 2, 3].map((n) =>
        vevent(`m${n}@example.org`, [
          `DTSTART;TZID=${AMS}:2027050${n}T100000`,
          `DTEND;TZID=${AMS}:2027050${n}T110000`,
          'SUMMARY:Markt',
        ]),
      ),
    );
    expect((await apply(parse(feed))).created).toBe(3);
    const slugs = Object.fromEntries(
      (await sourceEvents()).map((event) => [event.external_id.id, event.slug]),
    );
    expect(slugs).toEqual({
      'm1@example.org': 'markt-2',
      'm2@example.org': 'markt-4',
      'm3@example.org': 'markt-5',
    });
    const [{ n }] = await ctx.t.dataSource.query(
      "SELECT COUNT(DISTINCT slug) AS n FROM event_translations WHERE language = 'nl' AND slug LIKE 'markt%'",
    );
    expect(Number(n)).toBe(5);
  });
});

/** MySQL only: SQLite always takes RETURNING. */
const onMysql = process.env.TEST_ENGINE === 'mysql' ? describe : describe.skip;

/** Per suite: a MySQL test app with `env`, and the statements it sends from then on. */
function recordingApp(env: Record<string, string>): { app: () => TestApp; sent: string[] } {
  let t: TestApp;
  const sent: string[] = [];
  let spy: jest.SpyInstance;
  beforeAll(async () => {
    t = await createTestApp(env);
    spy = recordMysqlStatements(sent);
  });
  afterAll(async () => {
    spy?.mockRestore();
    await t?.close();
  });
  return { app: () => t, sent };
}

onMysql('import bulk create on MariaDB', () => {
  const { app, sent } = recordingApp({ SITE_TIMEZONE: AMS });

  it("inserts a chunk's one-off events with multi-row INSERT … RETURNING (MariaDB ≥ 10.5 takes it)", async () => {
    const parsed = parseIcalendar(FEED, { defaultZone: AMS });
    sent.length = 0;
    expect((await app().app.get(ImportWriter).apply(TARGET, parsed, undefined)).created).toBe(5);
    const returning = sent.filter((sql) => /^INSERT INTO `events`.*RETURNING/is.test(sql));
    // One statement per run of rows setting the same columns: the four one-off events in two.
    const rows = returning.map((sql) => (sql.match(/\),\s*\(/g)?.length ?? 0) + 1);
    expect(rows).toEqual([2, 2]);
  });
});

onMysql('import bulk create with DATABASE_PORTABLE_SQL', () => {
  const { app, sent } = recordingApp({ DATABASE_PORTABLE_SQL: 'true', SITE_TIMEZONE: AMS });

  it('inserts the events one by one, without RETURNING, with the same IDs, slugs and links', async () => {
    const parsed = parseIcalendar(FEED, { defaultZone: AMS });
    sent.length = 0;
    expect((await app().app.get(ImportWriter).apply(TARGET, parsed, undefined)).created).toBe(5);
    expect(sent.filter((sql) => /RETURNING/i.test(sql))).toEqual([]);
    const { body } = await app()
      .http()
      .get(`${API}/events?external_source=${SOURCE}&start_date=2027-01-01&end_date=2027-12-31`)
      .set('Authorization', app().auth.administrator)
      .expect(200);
    const events = (body.events as Json[])
      .filter((event) => event.external_id !== null)
      .sort((a, b) => a.id - b.id);
    expect(events.map((event) => [event.external_id.id, event.slug])).toEqual([
      ['a1@example.org', 'markt'],
      ['a2@example.org', 'markt-2'],
      ['s1@example.org', 'koorrepetitie'],
      ['a3@example.org', 'koningsdag'],
      ['a4@example.org', 'webinar-open'],
    ]);
    expect(events[1].organizer.map((o: Json) => o.organizer)).toEqual(['Bob']);
    expect(events[1].categories.map((c: Json) => c.name)).toEqual(['Markt']);
  });
});
