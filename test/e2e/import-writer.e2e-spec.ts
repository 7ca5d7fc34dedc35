import { DateTime } from 'luxon';
import type { AfterQueryEvent } from 'typeorm';
import { RecurrenceService } from '../../src/events/recurrence/recurrence.service';
import { parseIcalendar } from '../../src/imports/ical-import-parser';
import type { ImportItem, ImportParseResult } from '../../src/imports/import-item';
import type { ImportReport, ImportTarget } from '../../src/imports/import-report';
import { IMPORT_CHUNK_ITEMS, ImportWriter } from '../../src/imports/import-writer';
import { fixture } from '../unit/imports/ical-fixtures';
import { feedPage } from './helpers/changes';
import { rawBody } from './helpers/ical';
import { API, USERS, UserName } from './helpers/test-app';
import { sleep, useWebhookApp } from './helpers/webhook-receiver';

/*
 * The import writer (docs/api.md "Imports"): parsed feeds in the styles of
 * Google Calendar, Outlook and Apple Calendar written into events, checked
 * over HTTP (records, lists, /events.ics, the changes feed, webhooks).
 */

type Json = Record<string, any>;

const SOURCE = 'agenda';
const TARGET: ImportTarget = {
  source: SOURCE,
  language: 'nl',
  status: 'publish',
  categoryIds: [],
  trashRemoved: true,
  authorId: USERS.administrator.id,
};
const AMS = 'Europe/Amsterdam';
const SERIES_UID = '3k1v0h6q2lq8n5o0p9r4s7t1u2@google.com';
const GOOGLE = fixture('google.ics').toString('utf8');

const report = (counts: Partial<ImportReport>): ImportReport => ({
  created: 0,
  updated: 0,
  unchanged: 0,
  trashed: 0,
  skipped: [],
  ...counts,
});

/** The feed without the VEVENTs of `uid`. */
function withoutVevents(text: string, uid: string): string {
  const parts = text.split('BEGIN:VEVENT');
  return [parts[0], ...parts.slice(1).filter((part) => !part.includes(`UID:${uid}`))].join(
    'BEGIN:VEVENT',
  );
}

describe('import writer', () => {
  const ctx = useWebhookApp({
    SITE_TIMEZONE: AMS,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
    WEBHOOK_TIMEOUT_MS: '3000',
  });
  beforeAll(() => {
    ctx.t.app.get(RecurrenceService).now = () => DateTime.fromISO('2026-12-01T12:00:00Z');
  });

  const parse = (text: string | Buffer): ImportParseResult =>
    parseIcalendar(text, { defaultZone: AMS });
  const apply = (parsed: ImportParseResult, target: Partial<ImportTarget> = {}) =>
    ctx.t.app.get(ImportWriter).apply({ ...TARGET, ...target }, parsed, undefined);
  const run = (text: string | Buffer, target: Partial<ImportTarget> = {}) =>
    apply(parse(text), target);

  const auth = (user: UserName = 'administrator') => ({
    Host: 'api.test',
    Authorization: ctx.t.auth[user],
  });
  const get = async (path: string): Promise<Json> =>
    (await ctx.t.http().get(`${API}${path}`).set(auth()).expect(200)).body as Json;
  const list = async (query: string): Promise<Json[]> =>
    (await get(`/events?${query}&per_page=50`)).events as Json[];
  /** The events holding a key of the source: the filter also lists their series' occurrences. */
  const keyed = (events: Json[]) => events.filter((event) => event.external_id !== null);
  const sourceEvents = async () =>
    keyed(await list(`external_source=${SOURCE}&start_date=2027-01-01&end_date=2027-12-31`));
  const occurrencesOf = (id: number) =>
    list(`post_parent=${id}&start_date=2027-01-01&end_date=2027-12-31`);
  const byUid = async (uid: string): Promise<Json> => {
    const found = (await sourceEvents()).find((event) => event.external_id?.id === uid);
    if (!found) throw new Error(`no event for ${uid}`);
    return found;
  };

  /** What a write leaves behind: the feed's last number, the data version, the outbox. */
  const writeMarks = async () => {
    const [[change], [version], [deliveries]] = await Promise.all([
      ctx.t.dataSource.query('SELECT MAX(seq) AS seq FROM changes'),
      ctx.t.dataSource.query('SELECT version FROM data_version WHERE id = 1'),
      ctx.t.dataSource.query('SELECT COUNT(*) AS n FROM webhook_deliveries'),
    ]);
    return {
      seq: Number(change.seq),
      version: Number(version.version),
      deliveries: Number(deliveries.n),
    };
  };
  const times = (event: Json) => [
    event.title,
    event.start_date,
    event.end_date,
    event.timezone,
    event.all_day,
  ];

  describe('a Google Calendar feed', () => {
    it('writes the series with its detached and cancelled instances, the all-day and the UTC event', async () => {
      expect(await run(GOOGLE)).toEqual(report({ created: 3, updated: 1, trashed: 1 }));

      const [lecture, series, kingsDay] = await sourceEvents();
      expect(times(series)).toEqual([
        'Koorrepetitie',
        '2027-03-02 19:00:00',
        '2027-03-02 21:30:00',
        AMS,
        false,
      ]);
      // The cancelled instance was trashed as delete-one does: its date joined the EXDATE line.
      expect(series.recurrence).toEqual([
        'RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T165959Z',
        'EXDATE;VALUE=DATE:20270316,20270330,20270413',
      ]);
      expect(series.description).toBe(
        'Wekelijkse repetitie van het koor.\nNeem je eigen map mee; de <b>bladmuziek</b> ligt klaar.\n\nVragen? Mail het bestuur, of bel.',
      );
      expect(series.external_id).toEqual({ source: SOURCE, id: SERIES_UID });
      expect(series.status).toBe('publish');
      expect(series.author).toBe(String(USERS.administrator.id));
      expect(series.venue.venue).toBe(
        'Muziekcentrum, Zaal 2, Lange Viestraat 2, 3511 BK Utrecht, Nederland',
      );
      expect(series.venue.external_id).toEqual({
        source: SOURCE,
        id: expect.stringMatching(/^loc-/),
      });
      expect(
        series.organizer.map((o: Json) => [o.organizer, o.email, o.external_id.source]),
      ).toEqual([['Koor De Stem', 'bestuur@koordestem.example', SOURCE]]);

      const occurrences = await occurrencesOf(series.id);
      expect(occurrences.map((o) => [o.title, o.start_date, o.venue.venue])).toEqual([
        ['Koorrepetitie', '2027-03-09 19:00:00', series.venue.venue],
        ['Koorrepetitie', '2027-03-23 19:00:00', series.venue.venue],
        [
          'Koorrepetitie (generale)',
          '2027-04-06 20:00:00',
          'Muziekcentrum, Grote Zaal, Lange Viestraat 2, 3511 BK Utrecht',
        ],
        ['Koorrepetitie', '2027-04-20 19:00:00', series.venue.venue],
      ]);
      // The detached instance keeps its series and carries no key of its own.
      expect([occurrences[2].series_id, occurrences[2].external_id]).toEqual([series.id, null]);
      // One organizer for both: one key.
      expect(occurrences[2].organizer.map((o: Json) => o.id)).toEqual(
        series.organizer.map((o: Json) => o.id),
      );

      expect([...times(kingsDay), kingsDay.categories.map((c: Json) => c.name)]).toEqual([
        'Koningsdag',
        '2027-04-27 00:00:00',
        '2027-04-27 23:59:59',
        AMS,
        true,
        ['Feestdag'],
      ]);
      expect([...times(lecture), lecture.website, lecture.venue]).toEqual([
        'Lezing: Utrecht in de Middeleeuwen',
        '2027-01-15 11:00:00',
        '2027-01-15 12:30:00',
        'UTC',
        false,
        'https://example.org/lezing?id=42&lang=nl',
        [],
      ]);

      // The iCalendar feed writes the series back with the moved instance and the new EXDATE.
      const ics = await ctx.t
        .http()
        .get(
          `${API}/events.ics?external_source=${SOURCE}&start_date=2027-01-01&end_date=2027-12-31`,
        )
        .buffer(true)
        .parse(rawBody)
        .expect(200);
      const exported = parse(ics.body as Buffer).items;
      expect(exported.map((i) => [i.title, i.start.local, i.recurrenceId?.local ?? null])).toEqual([
        ['Lezing: Utrecht in de Middeleeuwen', '2027-01-15 11:00:00', null],
        ['Koorrepetitie', '2027-03-02 19:00:00', null],
        ['Koorrepetitie (generale)', '2027-04-06 20:00:00', '2027-04-06 19:00:00'],
        ['Koningsdag', '2027-04-27 00:00:00', null],
      ]);
    });

    it('writes nothing when the same feed comes again: no change, no feed entry, no webhook, the same data version', async () => {
      await ctx.t
        .http()
        .post(`${API}/webhooks`)
        .set(auth())
        .send({
          url: ctx.receiver.url('/imports'),
          events: ['event.created', 'event.updated', 'event.deleted'],
        })
        .expect(201);
      await run(GOOGLE);
      const first = await writeMarks();
      expect(first.deliveries).toBeGreaterThan(0);
      await ctx.receiver.waitFor('/imports', first.deliveries);
      const head = await feedPage(ctx.t, {}, ctx.t.auth.administrator);
      const records = await sourceEvents();

      expect(await run(GOOGLE)).toEqual(report({ unchanged: 5 }));
      await sleep(300);
      expect(await writeMarks()).toEqual(first);
      expect(ctx.receiver.on('/imports')).toHaveLength(first.deliveries);
      const after = await feedPage(ctx.t, { since: head.next_cursor }, ctx.t.auth.administrator);
      expect(after.changes).toEqual([]);
      expect(await sourceEvents()).toEqual(records);
    });

    it('updates a changed event, and only it, as an update the feed and webhooks see', async () => {
      await run(GOOGLE);
      const before = await byUid('0a9b8c7d6e5f@google.com');
      const head = await feedPage(ctx.t, {}, ctx.t.auth.administrator);
      const changed = GOOGLE.replace(
        'SUMMARY:Lezing: Utrecht in de Middeleeuwen',
        'SUMMARY:Lezing: Utrecht in de Gouden Eeuw',
      );

      expect(await run(changed)).toEqual(report({ updated: 1, unchanged: 4 }));
      const after = await get(`/events/${before.id}`);
      expect([after.title, after.start_date, after.website]).toEqual([
        'Lezing: Utrecht in de Gouden Eeuw',
        before.start_date,
        before.website,
      ]);
      const feed = await feedPage(ctx.t, { since: head.next_cursor }, ctx.t.auth.administrator);
      expect(feed.changes.map((c) => [c.kind, c.id, c.type, c.record?.title])).toEqual([
        ['event', before.id, 'upsert', 'Lezing: Utrecht in de Gouden Eeuw'],
      ]);
    });

    it('trashes an event that left the feed, once, and brings it back when it returns', async () => {
      await run(GOOGLE);
      const kingsDay = await byUid('7f2c9a1be04d@google.com');
      const without = withoutVevents(GOOGLE, '7f2c9a1be04d@google.com');

      expect(await run(without)).toEqual(report({ unchanged: 4, trashed: 1 }));
      expect((await get(`/events/${kingsDay.id}`)).status).toBe('trash');
      const marks = await writeMarks();
      expect(await run(without)).toEqual(report({ unchanged: 4 }));
      expect(await writeMarks()).toEqual(marks);
      // Back in the feed: written again, out of the trash.
      expect(await run(GOOGLE)).toEqual(report({ updated: 1, unchanged: 4 }));
      // Without trashRemoved, nothing leaves.
      expect(await run(without, { trashRemoved: false })).toEqual(report({ unchanged: 4 }));

      const back = await get(`/events/${kingsDay.id}`);
      expect([back.status, back.title]).toEqual(['publish', 'Koningsdag']);
    });

    it("walks the source's events for those that left the feed along its key index, without sorting them", async () => {
      await run(GOOGLE);
      const walks: Array<{ query: string; parameters: AfterQueryEvent['parameters'] }> = [];
      const subscriber = {
        afterQuery: (event: AfterQueryEvent) => {
          if (/external_source/.test(event.query) && /ORDER BY/i.test(event.query))
            walks.push({ query: event.query, parameters: event.parameters });
        },
      };
      ctx.t.dataSource.subscribers.push(subscriber);
      try {
        const without = withoutVevents(GOOGLE, '7f2c9a1be04d@google.com');
        expect(await run(without)).toEqual(report({ unchanged: 4, trashed: 1 }));
      } finally {
        ctx.t.dataSource.subscribers.splice(ctx.t.dataSource.subscribers.indexOf(subscriber), 1);
      }
      expect(walks.length).toBeGreaterThan(0);
      const mysql = ctx.t.engine === 'mysql';
      for (const { query, parameters } of walks) {
        const plan = (await ctx.t.dataSource.query(
          `${mysql ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${query}`,
          parameters,
        )) as Array<Record<string, unknown>>;
        const steps = mysql
          ? plan.map((row) => `${String(row.key)} ${String(row.Extra)}`)
          : plan.map((row) => String(row.detail));
        const indexed = steps.some((step) => step.includes('uq_events_external_key'));
        const sorted = steps.some((step) => /filesort|TEMP B-TREE/i.test(step));
        expect({ steps, indexed, sorted }).toEqual({ steps, indexed: true, sorted: false });
      }
    });

    it('trashes an event the source cancelled and never creates a cancelled one', async () => {
      await run(GOOGLE);
      const lecture = await byUid('0a9b8c7d6e5f@google.com');
      const cancelled = GOOGLE.replace('STATUS:TENTATIVE', 'STATUS:CANCELLED');
      expect(await run(cancelled)).toEqual(report({ unchanged: 4, trashed: 1 }));
      expect((await get(`/events/${lecture.id}`)).status).toBe('trash');
      expect(await run(cancelled)).toEqual(report({ unchanged: 5 }));

      await ctx.t.reset();
      expect(await run(cancelled)).toEqual(
        report({ created: 2, updated: 1, trashed: 1, unchanged: 1 }),
      );
      expect((await sourceEvents()).map((e) => e.title)).toEqual(['Koorrepetitie', 'Koningsdag']);
    });

    it('leaves an event a user trashed in the trash while the source does not change it', async () => {
      await run(GOOGLE);
      const kingsDay = await byUid('7f2c9a1be04d@google.com');
      await ctx.t.http().delete(`${API}/events/${kingsDay.id}`).set(auth('editor')).expect(200);

      const marks = await writeMarks();
      expect(await run(GOOGLE)).toEqual(report({ unchanged: 5 }));
      expect(await writeMarks()).toEqual(marks);
      expect((await get(`/events/${kingsDay.id}`)).status).toBe('trash');

      // Restored by a user: an unchanged feed leaves it as it is.
      await ctx.t
        .http()
        .patch(`${API}/events/${kingsDay.id}`)
        .set(auth('editor'))
        .send({ status: 'draft' })
        .expect(200);
      expect(await run(GOOGLE)).toEqual(report({ unchanged: 5 }));
      expect((await get(`/events/${kingsDay.id}`)).status).toBe('draft');

      // Changed at the source: rewritten with the import's status, out of the trash too.
      await ctx.t.http().delete(`${API}/events/${kingsDay.id}`).set(auth('editor')).expect(200);
      const renamed = GOOGLE.replace('SUMMARY:Koningsdag', 'SUMMARY:Koningsdag in de stad');
      expect(await run(renamed)).toEqual(report({ updated: 1, unchanged: 4 }));
      const restored = await get(`/events/${kingsDay.id}`);
      expect([restored.status, restored.title]).toEqual(['publish', 'Koningsdag in de stad']);
    });

    it('writes every event again once when the target changes (status, categories)', async () => {
      await run(GOOGLE);
      const category = await ctx.t
        .http()
        .post(`${API}/categories`)
        .set(auth())
        .send({ name: 'Stad' })
        .expect(201);
      expect(await run(GOOGLE, { status: 'draft', categoryIds: [category.body.id] })).toEqual(
        report({ updated: 4, unchanged: 1 }),
      );
      const kingsDay = await byUid('7f2c9a1be04d@google.com');
      expect([kingsDay.status, kingsDay.categories.map((c: Json) => c.name)]).toEqual([
        'draft',
        ['Feestdag', 'Stad'],
      ]);
      expect(await run(GOOGLE, { status: 'draft', categoryIds: [category.body.id] })).toEqual(
        report({ unchanged: 5 }),
      );
    });

    it('writes nothing for a refused feed, and trashes nothing for it', async () => {
      await run(GOOGLE);
      const marks = await writeMarks();
      expect(await run('this is no calendar')).toEqual(report({}));
      expect(await writeMarks()).toEqual(marks);
      expect(await sourceEvents()).toHaveLength(3);
    });
  });

  describe('Outlook and Apple Calendar feeds', () => {
    it('takes Windows zone names, private and all-day events and categories from Outlook', async () => {
      const result = await run(fixture('outlook.ics'));
      expect(result).toEqual(
        report({
          created: 4,
          skipped: [
            expect.objectContaining({ reason: 'malformed' }),
            expect.objectContaining({ reason: 'unknown_timezone' }),
          ],
        }),
      );
      const events = keyed(
        await list(
          `external_source=${SOURCE}&start_date=2027-01-01&end_date=2027-12-31&status=publish,private`,
        ),
      );
      expect(
        events.map((e) => [...times(e), e.status, e.categories.map((c: Json) => c.name)]),
      ).toEqual([
        [
          'Huurdersoverleg',
          '2027-02-09 10:00:00',
          '2027-02-09 11:30:00',
          'Europe/Berlin',
          false,
          'publish',
          [],
        ],
        [
          'Call with the New York office',
          '2027-03-05 09:00:00',
          '2027-03-05 10:00:00',
          'America/New_York',
          false,
          'publish',
          [],
        ],
        [
          'Partner call (Mumbai)',
          '2027-03-10 09:00:00',
          '2027-03-10 10:30:00',
          'UTC',
          false,
          'publish',
          [],
        ],
        [
          'Heidagen afdeling',
          '2027-03-18 00:00:00',
          '2027-03-19 23:59:59',
          AMS,
          true,
          'private',
          ['Intern', 'Personeel'],
        ],
      ]);
      expect(events[0].recurrence).toEqual([
        'RRULE:FREQ=MONTHLY;COUNT=10;BYDAY=2TU',
        'EXDATE;VALUE=DATE:20270413,20270511',
      ]);
      expect(await run(fixture('outlook.ics'))).toEqual(
        report({ unchanged: 4, skipped: result.skipped }),
      );
    });

    it('takes GEO, escaped text, RDATE and floating times from Apple Calendar', async () => {
      const result = await run(fixture('apple.ics'));
      expect(result.created).toBe(4);
      expect(result.skipped.map((s) => s.reason)).toEqual([
        'missing_uid',
        'unsupported_recurrence',
      ]);
      const symphony = await byUid('6B1C0F3E-9A2D-4C1B-8E7F-2D3C4B5A6978');
      expect([...times(symphony), symphony.description]).toEqual([
        'Symphony: Ode to Joy',
        '2027-03-05 19:30:00',
        '2027-03-05 22:00:00',
        'America/New_York',
        false,
        'Première: "Ode to Joy" – tickets €45 / $49 🎻\nBring: \\backslash & semicolons; commas,',
      ]);
      expect([symphony.venue.geo_lat, symphony.venue.geo_lng]).toEqual([40.772464, -73.983489]);
      const matinee = await byUid('0D1E2F3A-4B5C-6D7E-8F90-A1B2C3D4E5F6');
      expect((await occurrencesOf(matinee.id)).map((o) => o.start_date)).toEqual([
        '2027-03-27 14:30:00',
        '2027-04-03 14:30:00',
      ]);
      expect(matinee.categories.map((c: Json) => c.name)).toEqual(['Familie', 'Theater']);
      const floating = await byUid('FLOATING-0001');
      expect([floating.start_date, floating.timezone]).toEqual([
        '2027-04-01 18:30:00',
        'America/New_York',
      ]);
    });
  });

  describe('chunks', () => {
    /** `n` one-off events, one per day from 2027-01-01. */
    const generated = (n: number): ImportItem[] => {
      const [template] = parse(GOOGLE).items.filter((i) => i.uid === '0a9b8c7d6e5f@google.com');
      return Array.from({ length: n }, (_, i) => {
        const day = DateTime.fromISO('2027-01-01').plus({ days: i }).toISODate() as string;
        return {
          ...template,
          uid: `gen-${i}`,
          title: `Event ${i}`,
          start: { local: `${day} 10:00:00`, timezone: 'UTC' },
          end: { local: `${day} 11:00:00`, timezone: 'UTC' },
          hash: `hash-${i}`,
        };
      });
    };

    it('writes a feed longer than a chunk, and skips only the item an event write refuses', async () => {
      const items = generated(IMPORT_CHUNK_ITEMS + 50);
      items[IMPORT_CHUNK_ITEMS + 10] = {
        ...items[IMPORT_CHUNK_ITEMS + 10],
        organizer: { key: 'org-broken', name: 'Kassa', email: 'not an address' },
      };
      const parsed: ImportParseResult = { items, skipped: [], refused: null, calendarName: null };
      expect(await apply(parsed)).toEqual(
        report({
          created: IMPORT_CHUNK_ITEMS + 49,
          skipped: [
            {
              index: 0,
              uid: `gen-${IMPORT_CHUNK_ITEMS + 10}`,
              reason: 'rejected',
              detail: 'rest_invalid_param (organizer.email)',
            },
          ],
        }),
      );
      const [{ n }] = await ctx.t.dataSource.query(
        `SELECT COUNT(*) AS n FROM events WHERE external_source = '${SOURCE}'`,
      );
      expect(Number(n)).toBe(IMPORT_CHUNK_ITEMS + 49);
      expect((await apply(parsed)).unchanged).toBe(IMPORT_CHUNK_ITEMS + 49);
    });
  });

  describe('round trip', () => {
    it('gives the same events from our own /events.ics in an empty database', async () => {
      const create = (body: object) =>
        ctx.t.http().post(`${API}/events`).set(auth('editor')).send(body).expect(201);
      const venue = await ctx.t
        .http()
        .post(`${API}/venues`)
        .set(auth('editor'))
        .send({ venue: 'Muziekcentrum', city: 'Utrecht', geo_lat: 52.0929, geo_lng: 5.1154 })
        .expect(201);
      const series = await create({
        title: 'Koor; repetitie, "open"',
        description: '<p>Iedereen welkom.</p>',
        start_date: '2027-03-02 19:00:00',
        end_date: '2027-03-02 21:00:00',
        timezone: AMS,
        recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427'],
        venue: venue.body.id,
        categories: ['Muziek'],
      });
      await create({
        title: 'Boekenmarkt',
        all_day: true,
        start_date: '2027-05-01',
        end_date: '2027-05-02',
        timezone: AMS,
      });
      await create({
        title: 'Webinar',
        start_date: '2027-03-10 18:00:00',
        end_date: '2027-03-10 19:30:00',
        timezone: 'America/New_York',
      });
      const occurrences = await occurrencesOf(series.body.id);
      await ctx.t
        .http()
        .delete(`${API}/events/${occurrences[1].id}`)
        .set(auth('editor'))
        .expect(200);
      await ctx.t
        .http()
        .patch(`${API}/events/${occurrences[4].id}`)
        .set(auth('editor'))
        .send({
          title: 'Koor: generale',
          start_date: '2027-04-06 18:30:00',
          end_date: '2027-04-06 22:00:00',
        })
        .expect(200);
      const shown = async () =>
        (await list('start_date=2027-01-01&end_date=2027-12-31')).map((e) => [
          ...times(e),
          e.series_id === null ? 'one-off' : e.series_id === e.id ? 'series' : 'occurrence',
          e.categories.map((c: Json) => c.name),
        ]);
      const before = await shown();
      const ics = await ctx.t
        .http()
        .get(`${API}/events.ics?start_date=2027-01-01&end_date=2027-12-31`)
        .buffer(true)
        .parse(rawBody)
        .expect(200);

      await ctx.t.reset();
      expect(await run(ics.body as Buffer, { source: 'roundtrip' })).toEqual(
        report({ created: 3, updated: 1 }),
      );
      expect(await shown()).toEqual(before);
      expect(before).toHaveLength(10);
    });
  });
});
