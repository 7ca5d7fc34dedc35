import { Logger } from '@nestjs/common';
import { DateTime } from 'luxon';
import { RecurrenceService } from '../../src/events/recurrence/recurrence.service';
import { FeedClient } from './helpers/changes';
import { dayAt, eventRecord, eventRequests } from './helpers/events';
import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/** Tuesdays and Thursdays at 19:00 in Amsterdam, for three weeks. */
const COURSE = {
  title: 'Cursus',
  start_date: '2027-01-05 19:00:00',
  end_date: '2027-01-05 21:00:00',
  timezone: 'Europe/Amsterdam',
  recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270121T235959Z'],
};

/** A window wide enough for every series here. */
const WINDOW = 'start_date=2026-01-01&end_date=2040-12-31&per_page=50';

describe('recurring events (contract §16)', () => {
  let t: TestApp;
  let api: ReturnType<typeof eventRequests>;
  let recurrence: RecurrenceService;
  /** The clock the writes and the horizon job read. */
  let today = DateTime.fromISO('2026-12-01T12:00:00Z');

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    api = eventRequests(t);
    recurrence = t.app.get(RecurrenceService);
    recurrence.now = () => today;
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    today = DateTime.fromISO('2026-12-01T12:00:00Z');
    await t.reset();
  });

  /** The occurrences of a series as listed (`post_parent`), as `[id, start_date]`. */
  async function occurrences(
    seriesId: number,
    user?: 'administrator',
  ): Promise<Array<[number, string]>> {
    const res = await api.get(`/events?post_parent=${seriesId}&${WINDOW}`, user).expect(200);
    return (res.body.events as Array<{ id: number; start_date: string }>).map((e) => [
      e.id,
      e.start_date,
    ]);
  }

  const startsOf = async (seriesId: number) => (await occurrences(seriesId)).map(([, s]) => s);

  describe('create', () => {
    it('the series carries its lines; each other date is an event of its own', async () => {
      const created = await api.create(COURSE).expect(201);
      const id = created.body.id as number;
      expect(created.body).toEqual(
        eventRecord(id, {
          title: 'Cursus',
          slug: 'cursus',
          start_date: '2027-01-05 19:00:00',
          end_date: '2027-01-05 21:00:00',
          utc_start_date: '2027-01-05 18:00:00',
          utc_end_date: '2027-01-05 20:00:00',
          timezone: 'Europe/Amsterdam',
          timezone_abbr: 'CET',
          series_id: id,
          recurrence: COURSE.recurrence,
        }),
      );
      const listed = await occurrences(id);
      expect(listed.map(([, start]) => start)).toEqual([
        '2027-01-07 19:00:00',
        '2027-01-12 19:00:00',
        '2027-01-14 19:00:00',
        '2027-01-19 19:00:00',
        '2027-01-21 19:00:00',
      ]);
      const [firstId] = listed[0];
      expect(new Set(listed.map(([occurrenceId]) => occurrenceId)).size).toBe(5);
      const { json_ld: _ld, ...occurrence } = (await api.get(`/events/${firstId}`).expect(200))
        .body;
      expect(occurrence).toEqual(
        eventRecord(firstId, {
          title: 'Cursus',
          slug: 'cursus-2027-01-07',
          start_date: '2027-01-07 19:00:00',
          end_date: '2027-01-07 21:00:00',
          utc_start_date: '2027-01-07 18:00:00',
          utc_end_date: '2027-01-07 20:00:00',
          timezone: 'Europe/Amsterdam',
          timezone_abbr: 'CET',
          post_parent: id,
          series_id: id,
          recurrence: null,
        }),
      );
      // Lists show the series and its occurrences like any events.
      const all = await api.get(`/events?${WINDOW}`).expect(200);
      expect(all.body.total).toBe(6);
    });

    it('keeps the wall-clock time across the daylight-saving change', async () => {
      const created = await api
        .create({
          title: 'Koor',
          start_date: '2027-03-20 19:00:00',
          end_date: '2027-03-20 20:00:00',
          timezone: 'Europe/Amsterdam',
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
        })
        .expect(201);
      const res = await api.get(`/events?post_parent=${created.body.id}&${WINDOW}`).expect(200);
      expect(
        (res.body.events as Array<Record<string, string>>).map((e) => [
          e.start_date,
          e.utc_start_date,
          e.timezone_abbr,
        ]),
      ).toEqual([
        ['2027-03-27 19:00:00', '2027-03-27 18:00:00', 'CET'],
        ['2027-04-03 19:00:00', '2027-04-03 17:00:00', 'CEST'],
      ]);
    });

    it('copies texts in both languages, links and flags; counts occurrences in term counts', async () => {
      const venue = await api.createVenue({ venue: 'Zaal' }).expect(201);
      const created = await api
        .create({
          ...COURSE,
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
          categories: ['Muziek'],
          venue: venue.body.id,
          featured: true,
        })
        .expect(201);
      const id = created.body.id as number;
      await api.update(id, { title: 'Course', language: 'en' }).expect(200);
      const [[occurrenceId]] = await occurrences(id);
      const read = await api.get(`/events/${occurrenceId}?language=en`).expect(200);
      expect(read.body).toMatchObject({
        title: 'Course',
        slug: 'course-2027-01-12',
        languages: ['nl', 'en'],
        featured: true,
        venue: { id: venue.body.id },
        categories: [{ name: 'Muziek', count: 3 }],
      });
      const terms = await api.get('/categories').expect(200);
      expect(terms.body.categories).toMatchObject([{ name: 'Muziek', count: 3 }]);
      const venues = await api.get('/venues?has_events=true').expect(200);
      expect(venues.body.total).toBe(1);
    });

    it('a series that started in the past has upcoming events through its occurrences', async () => {
      const venue = await api.createVenue({ venue: 'Zaal' }).expect(201);
      const organizer = await api.createOrganizer({ organizer: 'Orkest' }).expect(201);
      await api
        .create({
          title: 'Reeks',
          start_date: dayAt(-3, '10:00:00'),
          end_date: dayAt(-3, '11:00:00'),
          venue: venue.body.id,
          organizer: [organizer.body.id],
          recurrence: ['RRULE:FREQ=DAILY;COUNT=6'],
        })
        .expect(201);
      for (const path of [
        '/venues?only_with_upcoming=true',
        '/organizers?only_with_upcoming=true',
      ]) {
        expect((await api.get(path).expect(200)).body.total).toBe(1);
      }
    });

    it.each([
      [
        ['RRULE:FREQ=WEEKLY', 'RRULE:FREQ=DAILY'],
        'recurrence regel 2: er is maar één RRULE toegestaan.',
      ],
      [
        ['RRULE:FREQ=HOURLY'],
        'recurrence regel 1: "FREQ=HOURLY" wordt niet ondersteund: elke herhaling heeft het tijdstip van het evenement.',
      ],
      [['RRULE:FREQ=WEEKLY;BYDAY=XX'], 'recurrence regel 1: "BYDAY=XX" is ongeldig.'],
      [
        ['EXDATE:2027-01-12'],
        'recurrence regel 1: "2027-01-12" is geen geldige datum of datum-tijd.',
      ],
      [['WEEKLY'], 'recurrence regel 1 ("WEEKLY") is geen RRULE-, RDATE- of EXDATE-regel.'],
    ])('%j → 400 naming the line', async (lines, message) => {
      await api
        .create({ ...COURSE, recurrence: lines })
        .expect(400)
        .expect((res) =>
          expect(res.body).toEqual(errorBody('rest_invalid_param', 400, { recurrence: message })),
        );
      expect((await api.get(`/events?${WINDOW}`).expect(200)).body.total).toBe(0);
    });

    it('more than 20 lines → 400; English messages with Accept-Language', async () => {
      const res = await api
        .create({ ...COURSE, recurrence: Array(21).fill('RDATE:20270201') })
        .expect(400);
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, { recurrence: expect.any(String) }),
      );
      const en = await t
        .http()
        .post(`${API}/events`)
        .set('Authorization', t.auth.author)
        .set('Accept-Language', 'en')
        .send({ ...COURSE, recurrence: ['RRULE:FREQ=DAILY;COUNT=2;UNTIL=20270101'] })
        .expect(400);
      expect(en.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          recurrence: 'recurrence line 1: COUNT and UNTIL cannot be used together.',
        }),
      );
    });
  });

  describe('editing', () => {
    it('a series edit changes every occurrence not edited on its own', async () => {
      const id = (await api.create(COURSE).expect(201)).body.id as number;
      const listed = await occurrences(id);
      const [detachedId] = listed[1];
      await api.update(detachedId, { title: 'Extra les' }).expect(200);
      await api
        .update(id, {
          title: 'Cursus nieuw',
          start_date: '2027-01-05 18:30:00',
          end_date: '2027-01-05 20:00:00',
        })
        .expect(200);
      const res = await api.get(`/events?post_parent=${id}&${WINDOW}`).expect(200);
      expect(
        (res.body.events as Array<Record<string, unknown>>).map((e) => [
          e.id,
          e.title,
          e.start_date,
          e.end_date,
        ]),
      ).toEqual([
        [listed[0][0], 'Cursus nieuw', '2027-01-07 18:30:00', '2027-01-07 20:00:00'],
        [detachedId, 'Extra les', '2027-01-12 19:00:00', '2027-01-12 21:00:00'],
        [listed[2][0], 'Cursus nieuw', '2027-01-14 18:30:00', '2027-01-14 20:00:00'],
        [listed[3][0], 'Cursus nieuw', '2027-01-19 18:30:00', '2027-01-19 20:00:00'],
        [listed[4][0], 'Cursus nieuw', '2027-01-21 18:30:00', '2027-01-21 20:00:00'],
      ]);
      // The detached occurrence keeps its series and parent, and cannot take a rule of its own.
      const detached = await api.get(`/events/${detachedId}`).expect(200);
      expect(detached.body).toMatchObject({ series_id: id, post_parent: id, recurrence: null });
      await api
        .update(detachedId, { recurrence: ['RRULE:FREQ=DAILY'] })
        .expect(400)
        .expect((r) =>
          expect(r.body).toEqual(
            errorBody('rest_invalid_param', 400, {
              recurrence: 'recurrence: een herhaling van een reeks kan geen eigen regel hebben.',
            }),
          ),
        );
    });

    it('a rule change keeps the IDs of the occurrences whose date still fits', async () => {
      const id = (await api.create(COURSE).expect(201)).body.id as number;
      const before = new Map((await occurrences(id)).map(([oid, start]) => [start, oid]));
      await api
        .update(id, { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU,SA;UNTIL=20270121T235959Z'] })
        .expect(200);
      const after = await occurrences(id);
      expect(after).toEqual([
        [expect.any(Number), '2027-01-09 19:00:00'],
        [before.get('2027-01-12 19:00:00'), '2027-01-12 19:00:00'],
        [expect.any(Number), '2027-01-16 19:00:00'],
        [before.get('2027-01-19 19:00:00'), '2027-01-19 19:00:00'],
      ]);
      await api.get(`/events/${before.get('2027-01-07 19:00:00')}`).expect(404);
    });

    it('deleting one occurrence adds an EXDATE; it stays gone after series edits', async () => {
      const id = (await api.create(COURSE).expect(201)).body.id as number;
      const [, second] = await occurrences(id);
      await api.remove(`/events/${second[0]}`).expect(200);
      const series = await api.get(`/events/${id}`).expect(200);
      expect(series.body.recurrence).toEqual([
        ...COURSE.recurrence,
        'EXDATE;VALUE=DATE:20270112',
      ]);
      await api.update(id, { title: 'Cursus 2' }).expect(200);
      expect(await startsOf(id)).toEqual([
        '2027-01-07 19:00:00',
        '2027-01-14 19:00:00',
        '2027-01-19 19:00:00',
        '2027-01-21 19:00:00',
      ]);
      // A second deletion joins the same EXDATE line.
      const [first] = await occurrences(id);
      await api.remove(`/events/${first[0]}?force=true`, 'editor').expect(200);
      expect((await api.get(`/events/${id}`).expect(200)).body.recurrence).toEqual([
        ...COURSE.recurrence,
        'EXDATE;VALUE=DATE:20270112,20270107',
      ]);
    });

    it('a deleted occurrence stays gone when the series moves to another zone', async () => {
      const late = {
        ...COURSE,
        start_date: '2027-01-05 23:30:00',
        end_date: '2027-01-05 23:45:00',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
      };
      const id = (await api.create(late).expect(201)).body.id as number;
      const [first, second] = await occurrences(id);
      await api.remove(`/events/${first[0]}?force=true`, 'editor').expect(200);
      await api.remove(`/events/${second[0]}`).expect(200);
      // 23:30 in Amsterdam is the next morning in Tokyo: the deleted dates must not move along.
      await api.update(id, { timezone: 'Asia/Tokyo' }).expect(200);
      expect(await startsOf(id)).toEqual(['2027-01-08 23:30:00']);
      expect((await api.get(`/events/${id}`).expect(200)).body.recurrence).toEqual([
        'RRULE:FREQ=DAILY;COUNT=4',
        'EXDATE;VALUE=DATE:20270106,20270107',
      ]);
    });

    it('a trashed occurrence survives series edits, trashed and restorable (§4, §7)', async () => {
      const id = (await api.create(COURSE).expect(201)).body.id as number;
      const listed = await occurrences(id);
      const [trashedId, trashedStart] = listed[1];
      const feed = new FeedClient(t, undefined, { kinds: 'events' });
      await feed.sync();
      await api.remove(`/events/${trashedId}`).expect(200);
      await api.update(id, { title: 'Cursus 2' }).expect(200);
      await api.update(id, { featured: true }).expect(200);
      const trashed = await api.get(`/events/${trashedId}`, 'administrator').expect(200);
      expect(trashed.body).toMatchObject({
        id: trashedId,
        status: 'trash',
        title: 'Cursus',
        start_date: trashedStart,
        series_id: id,
      });
      // The feed saw it trashed and never deleted for good; its siblings followed the series.
      const changes = await feed.sync();
      expect(changes.filter((c) => c.id === trashedId)).toEqual([
        expect.objectContaining({ kind: 'event', id: trashedId, type: 'delete' }),
      ]);
      await api.update(trashedId, { status: 'publish' }).expect(200);
      expect(await occurrences(id)).toEqual(listed);
      expect((await api.get(`/events/${id}`).expect(200)).body.recurrence).toEqual(
        COURSE.recurrence,
      );
      expect((await api.get(`/events/${trashedId}`).expect(200)).body).toMatchObject({
        status: 'publish',
        title: 'Cursus',
        featured: false,
      });
    });

    it("a rule change that drops a trashed occurrence's date keeps it; restored, it stands alone", async () => {
      const id = (await api.create(COURSE).expect(201)).body.id as number;
      const listed = await occurrences(id);
      // Thursday 7 January.
      const [thursdayId, thursdayStart] = listed[0];
      await api.remove(`/events/${thursdayId}`).expect(200);
      await api
        .update(id, { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270121T235959Z'] })
        .expect(200);
      expect(
        (await api.get(`/events/${thursdayId}`, 'administrator').expect(200)).body,
      ).toMatchObject({ status: 'trash', start_date: thursdayStart, series_id: id });
      await api.update(thursdayId, { status: 'publish' }).expect(200);
      expect(await startsOf(id)).toEqual([
        '2027-01-07 19:00:00',
        '2027-01-12 19:00:00',
        '2027-01-19 19:00:00',
      ]);
    });

    it('restoring a trashed series brings back its edited occurrences, not those trashed on their own', async () => {
      const id = (await api.create(COURSE).expect(201)).body.id as number;
      const listed = await occurrences(id);
      await api.update(listed[0][0], { title: 'Los' }).expect(200);
      await api.remove(`/events/${listed[1][0]}`).expect(200);
      await api.remove(`/events/${id}`).expect(200);
      await api.update(id, { status: 'publish' }).expect(200);
      expect(await occurrences(id)).toEqual([listed[0], ...listed.slice(2)]);
      expect(
        (await api.get(`/events/${listed[1][0]}`, 'administrator').expect(200)).body.status,
      ).toBe('trash');
    });

    it('trashing the series trashes every occurrence; deleting it for good deletes them', async () => {
      const id = (await api.create({ ...COURSE, categories: ['Les'] }).expect(201)).body
        .id as number;
      const listed = await occurrences(id);
      await api.update(listed[0][0], { title: 'Los' }).expect(200);
      await api.remove(`/events/${id}`).expect(200);
      for (const [oid] of listed) {
        await api
          .get(`/events/${oid}`)
          .expect(403)
          .expect((r) => expect(r.body).toEqual(errorBody('event-no-longer-available', 403)));
      }
      const terms = await api.get('/categories?hide_empty=false').expect(200);
      expect(terms.body.categories).toMatchObject([{ name: 'Les', count: 0 }]);
      await api.remove(`/events/${id}?force=true`, 'editor').expect(200);
      for (const [oid] of listed) await api.get(`/events/${oid}`).expect(404);
      expect(
        (await api.get(`/events?${WINDOW}&status=trash`, 'administrator').expect(200)).body.total,
      ).toBe(0);
    });

    it('removing the rule removes the occurrences; a detached one stays as a child event', async () => {
      const id = (await api.create(COURSE).expect(201)).body.id as number;
      const listed = await occurrences(id);
      await api.update(listed[0][0], { title: 'Los' }).expect(200);
      const res = await api.update(id, { recurrence: null }).expect(200);
      expect(res.body).toMatchObject({ series_id: null, recurrence: null });
      expect(await occurrences(id)).toEqual([[listed[0][0], '2027-01-07 19:00:00']]);
      expect((await api.get(`/events/${listed[0][0]}`).expect(200)).body).toMatchObject({
        series_id: null,
        post_parent: id,
      });
      for (const [oid] of listed.slice(1)) await api.get(`/events/${oid}`).expect(404);
    });
  });

  describe('rules that stop giving dates, far ends (every loop bounded)', () => {
    it.each([
      // From a Monday: every seventh day is a Monday, never a Tuesday.
      'RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU',
      'RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=31',
      'RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1',
    ])('%s: create, edit and the horizon job answer with no occurrence', async (rule) => {
      const monday = {
        ...COURSE,
        start_date: '2026-11-30 19:00:00',
        end_date: '2026-11-30 21:00:00',
      };
      const id = (await api.create({ ...monday, recurrence: [rule] }).expect(201)).body
        .id as number;
      await api.update(id, { title: 'Nooit' }).expect(200);
      today = DateTime.fromISO('2027-06-01T12:00:00Z');
      expect(await recurrence.extendHorizons()).toBe(0);
      expect(await occurrences(id)).toEqual([]);
      expect((await api.get(`/events/${id}`).expect(200)).body).toMatchObject({
        title: 'Nooit',
        recurrence: [rule],
        series_id: id,
      });
    });

    it('a rule that needs too many steps to reach the horizon → 400 naming recurrence', async () => {
      await api
        .create({
          ...COURSE,
          start_date: '1500-01-05 19:00:00',
          end_date: '1500-01-05 21:00:00',
          recurrence: ['RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=31'],
        })
        .expect(400)
        .expect((res) =>
          expect(res.body).toEqual(
            errorBody('rest_invalid_param', 400, {
              recurrence:
                'recurrence: de regel heeft meer dan 5000 stappen van zijn FREQ nodig tot de horizon; laat hem later beginnen of gebruik een grovere FREQ.',
            }),
          ),
        );
    });

    it.each(['Asia/Tokyo', 'Europe/Amsterdam'])(
      'UNTIL=99991231T200000Z in %s is the year 10000 there → 400 naming recurrence',
      async (timezone) => {
        const line =
          timezone === 'Asia/Tokyo' ? 'UNTIL=99991231T200000Z' : 'UNTIL=99991231T230000Z';
        await api
          .create({ ...COURSE, timezone, recurrence: [`RRULE:FREQ=WEEKLY;${line}`] })
          .expect(400)
          .expect((res) =>
            expect(res.body).toEqual(
              errorBody('rest_invalid_param', 400, {
                recurrence: `recurrence regel 1: "${line}" valt buiten de jaren 1000 tot 9999 (in de tijdzone van het evenement of in UTC).`,
              }),
            ),
          );
        // The same rule on an existing event: 400 too, and the event is as it was.
        const id = (await api.create(COURSE).expect(201)).body.id as number;
        await api.update(id, { timezone, recurrence: [`RRULE:FREQ=WEEKLY;${line}`] }).expect(400);
        expect((await api.get(`/events/${id}`).expect(200)).body.recurrence).toEqual(
          COURSE.recurrence,
        );
      },
    );
  });

  describe('horizon', () => {
    const DAILY = {
      title: 'Dagelijks',
      start_date: '2026-12-01 09:00:00',
      end_date: '2026-12-01 10:00:00',
      recurrence: ['RRULE:FREQ=DAILY'],
    };
    const lastStart = async (id: number) => {
      const res = await api
        .get(`/events?post_parent=${id}&start_date=2028-11-01&end_date=2040-01-01&per_page=50`)
        .expect(200);
      const events = res.body.events as Array<{ start_date: string }>;
      return { total: res.body.total as number, last: events[events.length - 1]?.start_date };
    };

    it('materializes RECURRENCE_HORIZON_MONTHS ahead and the job extends it as time passes', async () => {
      const id = (await api.create(DAILY).expect(201)).body.id as number;
      expect(await lastStart(id)).toEqual({ total: 31, last: '2028-12-01 09:00:00' });
      // Nothing is due yet.
      expect(await recurrence.extendHorizons()).toBe(0);
      today = DateTime.fromISO('2026-12-11T12:00:00Z');
      // Two instances at once: each date is added once.
      const added = await Promise.all([recurrence.extendHorizons(), recurrence.extendHorizons()]);
      expect(added[0] + added[1]).toBe(10);
      expect(await lastStart(id)).toEqual({ total: 41, last: '2028-12-11 09:00:00' });
      expect(await recurrence.extendHorizons()).toBe(0);
    });

    it('the job skips a series whose rule now needs more steps than the cap, and extends the next', async () => {
      // Leap days that are Mondays (1988, 2016): 19,987 days of walking from 1974 to the horizon
      // at creation, under the cap of 20,000; a month later the walk would need 20,017.
      const sparse = (
        await api
          .create({
            ...DAILY,
            title: 'Schrikkelmaandag',
            start_date: '1974-03-15 09:00:00',
            end_date: '1974-03-15 10:00:00',
            recurrence: ['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO'],
          })
          .expect(201)
      ).body.id as number;
      const daily = (await api.create(DAILY).expect(201)).body.id as number;
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      try {
        today = DateTime.fromISO('2026-12-31T12:00:00Z');
        // The sparse series comes first (same horizon, lower ID); its refusal stops nothing.
        expect(await recurrence.extendHorizons()).toBe(30);
        // 1 November to 31 December 2028.
        expect((await lastStart(daily)).total).toBe(61);
        const skipped = warn.mock.calls.filter(([message]) =>
          String(message).includes(`series ${sparse} `),
        );
        expect(skipped).toEqual([
          [
            `recurrence horizon job: series ${sparse} not extended: {"recurrence":{"reason":"recurrenceTooLong","args":{"name":"recurrence","max":20000}}}`,
          ],
        ]);
      } finally {
        warn.mockRestore();
      }
      expect(
        (
          await api
            .get(`/events?post_parent=${sparse}&start_date=1970-01-01&end_date=2040-12-31`)
            .expect(200)
        ).body.events,
      ).toEqual([
        expect.objectContaining({ start_date: '1988-02-29 09:00:00' }),
        expect.objectContaining({ start_date: '2016-02-29 09:00:00' }),
      ]);
    });

    it('a series that starts later has its first horizon counted from its start', async () => {
      const id = (
        await api
          .create({
            ...DAILY,
            start_date: '2027-12-01 09:00:00',
            end_date: '2027-12-01 10:00:00',
            recurrence: ['RRULE:FREQ=MONTHLY'],
          })
          .expect(201)
      ).body.id as number;
      const starts = await startsOf(id);
      expect(starts.length).toBe(24);
      expect(starts[starts.length - 1]).toBe('2029-12-01 09:00:00');
    });
  });

  describe('changes feed (docs/api.md §12, §16)', () => {
    /** The events an anonymous list shows in the window, as feed keys. */
    async function listedKeys(): Promise<string[]> {
      const res = await api.get(`/events?${WINDOW}`).expect(200);
      expect(res.body.total).toBeLessThanOrEqual(50);
      return (res.body.events as Array<{ id: number }>).map((e) => `event:${e.id}`).sort();
    }

    it('announces occurrences that appear, change and disappear', async () => {
      const feed = new FeedClient(t, undefined, { kinds: 'events' });
      await feed.sync();
      expect(feed.keys('event')).toEqual([]);

      // Created: the series and each occurrence arrive as upserts.
      const id = (await api.create(COURSE).expect(201)).body.id as number;
      const created = await feed.sync();
      expect(created.filter((e) => e.type === 'upsert')).toHaveLength(6);
      expect(feed.keys('event')).toEqual(await listedKeys());
      const listed = await occurrences(id);

      // A series edit reaches every occurrence, in the feed too.
      await api.update(id, { title: 'Cursus 2' }).expect(200);
      const edited = await feed.sync();
      expect(new Set(edited.map((e) => `${e.kind}:${e.id}:${e.type}`))).toEqual(
        new Set([id, ...listed.map(([oid]) => oid)].map((oid) => `event:${oid}:upsert`)),
      );
      for (const [oid] of listed) {
        expect(feed.records.get(`event:${oid}`)).toMatchObject({ title: 'Cursus 2' });
      }

      // A shorter rule: the dates that no longer fit are announced as deletes.
      await api
        .update(id, { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270114T235959Z'] })
        .expect(200);
      const shortened = await feed.sync();
      const dropped = listed.filter(([, start]) => start > '2027-01-15').map(([oid]) => oid);
      expect(dropped).toHaveLength(2);
      expect(
        shortened
          .filter((e) => e.type === 'delete')
          .map((e) => e.id)
          .sort((a, b) => a - b),
      ).toEqual(dropped.sort((a, b) => a - b));
      expect(feed.keys('event')).toEqual(await listedKeys());

      // Deleting one occurrence: a delete for it and an upsert of the series (its EXDATE).
      await api.remove(`/events/${listed[0][0]}`).expect(200);
      const deletedOne = await feed.sync();
      expect(deletedOne).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'event', id: listed[0][0], type: 'delete' }),
          expect.objectContaining({ kind: 'event', id, type: 'upsert' }),
        ]),
      );
      expect(feed.records.get(`event:${id}`)?.recurrence).toEqual([
        'RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270114T235959Z',
        'EXDATE;VALUE=DATE:20270107',
      ]);
      expect(feed.keys('event')).toEqual(await listedKeys());

      // Trashing the series: everything it made is gone for an anonymous reader.
      await api.remove(`/events/${id}`).expect(200);
      await feed.sync();
      expect(feed.keys('event')).toEqual([]);
    });

    it('announces the occurrences the horizon job adds', async () => {
      const id = (
        await api
          .create({
            title: 'Maandelijks',
            start_date: '2026-12-01 09:00:00',
            end_date: '2026-12-01 10:00:00',
            recurrence: ['RRULE:FREQ=MONTHLY'],
          })
          .expect(201)
      ).body.id as number;
      const feed = new FeedClient(t, undefined, { kinds: 'events' });
      await feed.sync();
      expect(feed.keys('event')).toHaveLength(25);
      today = DateTime.fromISO('2027-01-02T12:00:00Z');
      expect(await recurrence.extendHorizons()).toBe(1);
      const added = await feed.sync();
      expect(added).toEqual([
        expect.objectContaining({
          kind: 'event',
          type: 'upsert',
          record: expect.objectContaining({ start_date: '2029-01-01 09:00:00', series_id: id }),
        }),
      ]);
      expect(feed.keys('event')).toHaveLength(26);
    });
  });
});
