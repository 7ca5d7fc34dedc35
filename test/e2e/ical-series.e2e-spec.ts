import { DateTime } from 'luxon';
import { RecurrenceService } from '../../src/events/recurrence/recurrence.service';
import { IcalFeedService } from '../../src/ical/ical-feed.service';
import { eventRequests } from './helpers/events';
import { expandCalendar, rawBody, readCalendar, Shown } from './helpers/ical';
import { API, createTestApp, TestApp, UserName } from './helpers/test-app';

/*
 * Recurring series in iCalendar (docs/api.md §14, §16): a series is one
 * VEVENT with its rule, plus one VEVENT per occurrence edited on its own
 * (same UID, RECURRENCE-ID). Each feed is parsed with ical.js, expanded the
 * way a calendar app expands it, and compared with what the JSON list shows
 * in the same window.
 */

let t: TestApp;
let api: ReturnType<typeof eventRequests>;

beforeAll(async () => {
  t = await createTestApp();
  api = eventRequests(t);
  t.app.get(RecurrenceService).now = () => DateTime.fromISO('2026-12-01T12:00:00Z');
});
afterAll(() => t.close());
beforeEach(() => {
  t.app.get(IcalFeedService).batchSize = 500;
  return t.reset();
});

const uid = (id: number) => `${id}@calendar.test`;

function ics(path: string, user?: UserName) {
  const req = t.http().get(`${API}${path}`).buffer(true).parse(rawBody);
  if (user) req.set('Authorization', t.auth[user]);
  return req;
}

/** Weekly on Tuesday at 19:00 in Amsterdam, across the change of 28 March 2027. */
const CHOIR = {
  title: 'Koor',
  start_date: '2027-03-02 19:00:00',
  end_date: '2027-03-02 21:00:00',
  timezone: 'Europe/Amsterdam',
  recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427'],
};

interface Listed {
  id: number;
  title: string;
  utc_start_date: string;
  utc_end_date: string;
  start_date: string;
  all_day: boolean;
}

/** Every event the JSON list shows in a window, following its pages. */
async function listed(query: string, user?: UserName): Promise<Listed[]> {
  const events: Listed[] = [];
  for (let page = 1; ; page++) {
    const res = await api.get(`/events?${query}&per_page=50&page=${page}`, user).expect(200);
    events.push(...(res.body.events as Listed[]));
    if (!res.body.next_rest_url) return events;
  }
}

/** An occurrence as both sides can name it: its start (a date for all-day ones) and title. */
const fromJson = (e: Listed) => [e.all_day ? e.start_date.slice(0, 10) : e.utc_start_date, e.title];
const fromIcal = (s: Shown) => [s.start, s.summary];
const byStart = (a: string[], b: string[]) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]);

/** The feed of a window, parsed, and what an app expands from it, compared with the JSON list. */
async function compareWindow(from: string, to: string, extra = '', user?: UserName) {
  const query = `start_date=${from}&end_date=${to}${extra}`;
  const res = await ics(`/events.ics?${query}`, user).expect(200);
  const calendar = readCalendar(res);
  const shown = expandCalendar(res, `${from} 00:00:00`, `${to} 23:59:59`);
  const json = await listed(query, user);
  expect(shown.map(fromIcal).sort(byStart)).toEqual(json.map(fromJson).sort(byStart));
  return { calendar, shown, json };
}

async function occurrenceIds(seriesId: number): Promise<Listed[]> {
  return listed(`post_parent=${seriesId}&start_date=2026-01-01&end_date=2030-12-31`, 'author');
}

describe('a series is one VEVENT with its rule', () => {
  it('weekly across the DST change, with a deleted and a detached occurrence', async () => {
    const id = (await api.create(CHOIR).expect(201)).body.id as number;
    const single = await api
      .create({
        title: 'Los concert',
        start_date: '2027-03-10 20:00:00',
        end_date: '2027-03-10 22:00:00',
      })
      .expect(201);
    const occurrences = await occurrenceIds(id);
    expect(occurrences.map((o) => o.start_date.slice(0, 10))).toEqual([
      '2027-03-09',
      '2027-03-16',
      '2027-03-23',
      '2027-03-30',
      '2027-04-06',
      '2027-04-13',
      '2027-04-20',
      '2027-04-27',
    ]);
    // Deleted (an EXDATE of the series) and detached (edited on its own: new title, time, text).
    await api.remove(`/events/${occurrences[1].id}`).expect(200);
    const detached = occurrences[4];
    await api
      .update(detached.id, {
        title: 'Koor: generale',
        description: '<p>Met orkest</p>',
        start_date: '2027-04-06 18:30:00',
        end_date: '2027-04-06 22:00:00',
      })
      .expect(200);

    const { calendar, shown } = await compareWindow('2027-02-01', '2027-06-30');
    // One series VEVENT, one exception, the plain event; nothing per occurrence.
    expect(calendar.uids.sort()).toEqual([uid(id), uid(id), uid(single.body.id)].sort());
    const [master] = calendar.events.filter((e) => e.UID === uid(id) && !e['RECURRENCE-ID']);
    expect(master).toMatchObject({
      DTSTART: {
        tzid: 'Europe/Amsterdam',
        local: '2027-03-02 19:00:00',
        utc: '2027-03-02 18:00:00',
      },
      DTEND: { tzid: 'Europe/Amsterdam', local: '2027-03-02 21:00:00' },
      SUMMARY: 'Koor',
    });
    const text = (await ics(`/events/${id}.ics`).expect(200)).body.toString('utf8') as string;
    expect(text).toContain('RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T215959Z\r\n');
    expect(text).toContain('EXDATE;TZID=Europe/Amsterdam:20270316T190000\r\n');
    const [exception] = calendar.events.filter((e) => e['RECURRENCE-ID']);
    expect(exception).toMatchObject({
      SUMMARY: 'Koor: generale',
      DESCRIPTION: 'Met orkest',
      DTSTART: {
        tzid: 'Europe/Amsterdam',
        local: '2027-04-06 18:30:00',
        utc: '2027-04-06 16:30:00',
      },
    });
    expect(text).toContain('RECURRENCE-ID;TZID=Europe/Amsterdam:20270406T190000\r\n');
    // 19:00 wall clock on both sides of the change: 18:00 UTC in March, 17:00 UTC in April.
    expect(shown.filter((s) => s.uid === uid(id)).map((s) => s.start)).toEqual([
      '2027-03-02 18:00:00',
      '2027-03-09 18:00:00',
      '2027-03-23 18:00:00',
      '2027-03-30 17:00:00',
      '2027-04-06 16:30:00',
      '2027-04-13 17:00:00',
      '2027-04-20 17:00:00',
      '2027-04-27 17:00:00',
    ]);
  });

  it('an all-day series: DATE values, EXDATE and RECURRENCE-ID as dates', async () => {
    const id = (
      await api
        .create({
          title: 'Markt',
          start_date: '2027-05-01 00:00:00',
          end_date: '2027-05-01 23:59:59',
          all_day: true,
          timezone: 'Europe/Amsterdam',
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'RDATE;VALUE=DATE:20270520'],
        })
        .expect(201)
    ).body.id as number;
    const occurrences = await occurrenceIds(id);
    await api.remove(`/events/${occurrences[1].id}`, 'editor').expect(200);
    await api.update(occurrences[0].id, { title: 'Markt (Hemelvaart)' }).expect(200);
    const { calendar } = await compareWindow('2027-04-01', '2027-07-31');
    expect(calendar.events).toHaveLength(2);
    const text = (await ics(`/events/${id}.ics`).expect(200)).body.toString('utf8') as string;
    expect(text).toContain('DTSTART;VALUE=DATE:20270501\r\n');
    expect(text).toContain('DTEND;VALUE=DATE:20270502\r\n');
    expect(text).toContain('RRULE:FREQ=WEEKLY;COUNT=6\r\n');
    expect(text).toContain('RDATE;VALUE=DATE:20270520\r\n');
    expect(text).toContain(
      `EXDATE;VALUE=DATE:${occurrences[1].start_date.slice(0, 10).replace(/-/g, '')}\r\n`,
    );
    expect(text).toContain(
      `RECURRENCE-ID;VALUE=DATE:${occurrences[0].start_date.slice(0, 10).replace(/-/g, '')}\r\n`,
    );
  });

  it('a UTC+5 series on Tuesdays at 01:00 (Mondays in UTC) expands on its own wall clock', async () => {
    const id = (
      await api
        .create({
          title: 'Vroeg',
          start_date: '2027-01-05 01:00:00',
          end_date: '2027-01-05 02:00:00',
          timezone: 'UTC+5',
          recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4'],
        })
        .expect(201)
    ).body.id as number;
    const { calendar, shown } = await compareWindow('2027-01-01', '2027-02-28');
    expect(calendar.zones.map((z) => z.tzid)).toEqual(['UTC+5']);
    expect(shown.map((s) => s.start)).toEqual([
      '2027-01-04 20:00:00',
      '2027-01-11 20:00:00',
      '2027-01-18 20:00:00',
      '2027-01-25 20:00:00',
    ]);
    expect(calendar.events[0].UID).toBe(uid(id));
  });
});

describe('windows, filters and batches', () => {
  it('a series is in a feed when any of its events matches, once, across batches', async () => {
    t.app.get(IcalFeedService).batchSize = 2;
    const id = (await api.create({ ...CHOIR, categories: ['Zang'] }).expect(201)).body.id as number;
    const other = await api
      .create({
        title: 'Jazz',
        start_date: '2027-04-01 20:00:00',
        end_date: '2027-04-01 22:00:00',
        categories: ['Jazz'],
      })
      .expect(201);
    // The window starts after the series' own start: its later occurrences bring it in.
    const late = await compareWindow('2027-04-01', '2027-04-30');
    expect(late.calendar.uids.sort()).toEqual([uid(id), uid(other.body.id)].sort());
    expect(late.shown.filter((s) => s.uid === uid(id))).toHaveLength(4);
    // Filters select series by any of their events, as the list does.
    const sung = await compareWindow('2027-02-01', '2027-06-30', '&categories=zang');
    expect(sung.calendar.uids).toEqual([uid(id)]);
    // A window none of its events is in: not there.
    const none = await ics('/events.ics?start_date=2027-06-01&end_date=2027-06-30').expect(200);
    expect(readCalendar(none).events).toHaveLength(0);
  });

  it('a trashed and restored occurrence is back in the feed as in the list', async () => {
    const id = (await api.create(CHOIR).expect(201)).body.id as number;
    const occurrences = await occurrenceIds(id);
    const restored = occurrences[2];
    await api.remove(`/events/${restored.id}`).expect(200);
    const trashed = await compareWindow('2027-02-01', '2027-06-30');
    expect(trashed.shown.map((s) => s.start)).not.toContain(restored.utc_start_date);
    await api.update(id, { title: 'Koor (nieuw)' }).expect(200);
    await api.update(restored.id, { status: 'publish' }).expect(200);
    const { calendar, shown } = await compareWindow('2027-02-01', '2027-06-30');
    // Every date of the rule, the restored one with the title it had when it was trashed.
    expect(shown.map((s) => [s.start, s.summary])).toEqual([
      ['2027-03-02 18:00:00', 'Koor (nieuw)'],
      ...occurrences.map((o) => [o.utc_start_date, o === restored ? 'Koor' : 'Koor (nieuw)']),
    ]);
    const [master] = calendar.events.filter((e) => !e['RECURRENCE-ID']);
    expect(master).not.toHaveProperty('EXDATE');
  });

  it('a deleted date the rule no longer gives is no EXDATE, so a later deleted date stays out in ical.js', async () => {
    const id = (await api.create(CHOIR).expect(201)).body.id as number;
    const before = await occurrenceIds(id);
    await api.remove(`/events/${before[1].id}`).expect(200);
    await api
      .update(id, { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270427'] })
      .expect(200);
    await api.update(id, { recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TH;UNTIL=20270427'] }).expect(200);
    const thursdays = (await occurrenceIds(id)).filter((o) => o.start_date.startsWith('2027-03-1'));
    await api.remove(`/events/${thursdays[0].id}`).expect(200);
    // ical.js kept the Thursday when the Tuesday's EXDATE (no date of the rule now) came first.
    const { shown } = await compareWindow('2027-02-01', '2027-06-30');
    expect(shown.map((s) => s.start)).not.toContain(thursdays[0].utc_start_date);
    const text = (await ics('/events.ics?start_date=2027-02-01&end_date=2027-06-30').expect(200))
      .body as Buffer;
    const exdates = text
      .toString('utf8')
      .split('\r\n')
      .filter((line) => line.startsWith('EXDATE'));
    expect(exdates).toEqual([
      `EXDATE;TZID=Europe/Amsterdam:${thursdays[0].start_date.replace(/[-:]/g, '').replace(' ', 'T')}`,
    ]);
  });

  it('an occurrence the caller may not see is an EXDATE for them, an exception for an editor', async () => {
    const id = (await api.create(CHOIR).expect(201)).body.id as number;
    const occurrences = await occurrenceIds(id);
    await api.update(occurrences[2].id, { status: 'draft', title: 'Koor (concept)' }).expect(200);
    const anonymous = await compareWindow('2027-02-01', '2027-06-30');
    expect(anonymous.calendar.events).toHaveLength(1);
    const text = (await ics('/events.ics?start_date=2027-02-01&end_date=2027-06-30').expect(200))
      .body as Buffer;
    expect(text.toString('utf8')).toContain('EXDATE;TZID=Europe/Amsterdam:20270323T190000\r\n');
    const editor = await compareWindow('2027-02-01', '2027-06-30', '', 'editor');
    expect(editor.calendar.events.map((e) => e.SUMMARY)).toEqual(['Koor', 'Koor (concept)']);
  });
});

describe('single events and SEQUENCE', () => {
  it('the series answers whole; an occurrence answers alone, as an event of its own', async () => {
    const id = (await api.create(CHOIR).expect(201)).body.id as number;
    const occurrences = await occurrenceIds(id);
    await api.update(occurrences[0].id, { title: 'Koor extra' }).expect(200);
    const series = readCalendar(await ics(`/events/${id}.ics`).expect(200));
    expect(series.uids).toEqual([uid(id), uid(id)]);
    expect(series.events[0].RRULE).toBeDefined();
    for (const occurrence of occurrences.slice(0, 2)) {
      const alone = readCalendar(await ics(`/events/${occurrence.id}.ics`).expect(200));
      expect(alone.uids).toEqual([uid(occurrence.id)]);
      expect(alone.events[0]).not.toHaveProperty('RRULE');
      expect(alone.events[0]).not.toHaveProperty('RECURRENCE-ID');
    }
  });

  it("the series' SEQUENCE grows when an occurrence is edited or deleted", async () => {
    const id = (await api.create(CHOIR).expect(201)).body.id as number;
    const occurrences = await occurrenceIds(id);
    const sequences = async () =>
      readCalendar(await ics(`/events/${id}.ics`).expect(200)).events.map((e) => e.SEQUENCE);
    expect(await sequences()).toEqual([0]);
    await api.update(occurrences[0].id, { title: 'Koor extra' }).expect(200);
    expect(await sequences()).toEqual([1, 1]);
    await api.update(occurrences[0].id, { title: 'Koor extra 2' }).expect(200);
    expect(await sequences()).toEqual([2, 2]);
    await api.remove(`/events/${occurrences[1].id}`).expect(200);
    expect(await sequences()).toEqual([3, 3]);
    await api.update(id, { title: 'Koor 2' }).expect(200);
    expect(await sequences()).toEqual([4, 4]);
  });
});
