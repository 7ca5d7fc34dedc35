import { DateTime } from 'luxon';
import { RecurrenceService } from '../../src/events/recurrence/recurrence.service';
import { parseIcalendar } from '../../src/imports/ical-import-parser';
import type { ImportItem } from '../../src/imports/import-item';
import { eventRequests } from './helpers/events';
import { rawBody } from './helpers/ical';
import { API, createTestApp, TestApp } from './helpers/test-app';

/*
 * Our own /events.ics, as the running service writes it, read back by the
 * import parser (docs/api.md "Imports (draft: parsing rules)"): every event
 * the JSON list shows comes back with its title, times, zone, series rule and
 * exceptions, venue, organizer and categories. No import is written here.
 */

let t: TestApp;
let api: ReturnType<typeof eventRequests>;

beforeAll(async () => {
  // The feed names SITE_TIMEZONE as X-WR-TIMEZONE: the zone the parser gives all-day dates.
  t = await createTestApp({ SITE_TIMEZONE: 'Europe/Amsterdam' });
  api = eventRequests(t);
  t.app.get(RecurrenceService).now = () => DateTime.fromISO('2026-12-01T12:00:00Z');
});
afterAll(() => t.close());
beforeEach(() => t.reset());

type Json = Record<string, any>;

async function listed(query: string): Promise<Json[]> {
  const res = await api.get(`/events?${query}&per_page=50`).expect(200);
  return res.body.events as Json[];
}

const uid = (id: number) => `${id}@calendar.test`;
const at = (local: string, timezone: string) => ({ local, timezone });

describe('our /events.ics read back by the import parser', () => {
  it('gives every event of the feed as the JSON list shows it', async () => {
    const venue = (
      await api
        .createVenue({
          venue: 'Muziekcentrum',
          address: 'Lange Viestraat 2',
          city: 'Utrecht',
          geo_lat: 52.0929,
          geo_lng: 5.1154,
        })
        .expect(201)
    ).body;
    const organizer = (
      await api
        .createOrganizer({ organizer: 'Koor De Stem', email: 'bestuur@koordestem.example' })
        .expect(201)
    ).body;
    const series = (
      await api
        .create({
          title: 'Koor; repetitie, "open"',
          description: '<p>Iedereen welkom.</p>',
          start_date: '2027-03-02 19:00:00',
          end_date: '2027-03-02 21:00:00',
          timezone: 'Europe/Amsterdam',
          recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427'],
          venue: venue.id,
          organizer: [organizer.id],
          categories: ['Muziek'],
        })
        .expect(201)
    ).body;
    const allDay = (
      await api
        .create({
          title: 'Boekenmarkt',
          all_day: true,
          start_date: '2027-05-01',
          end_date: '2027-05-02',
          timezone: 'Europe/Amsterdam',
        })
        .expect(201)
    ).body;
    const utc = (
      await api
        .create({
          title: 'Webinar',
          start_date: '2027-03-10 18:00:00',
          end_date: '2027-03-10 19:30:00',
          timezone: 'UTC',
        })
        .expect(201)
    ).body;
    const occurrences = await listed(
      `post_parent=${series.id}&start_date=2027-01-01&end_date=2027-12-31`,
    );
    await api.remove(`/events/${occurrences[1].id}`).expect(200);
    const exdate = `EXDATE;VALUE=DATE:${occurrences[1].start_date.slice(0, 10).replaceAll('-', '')}`;
    await api
      .update(occurrences[4].id, {
        title: 'Koor: generale',
        start_date: '2027-04-06 18:30:00',
        end_date: '2027-04-06 22:00:00',
      })
      .expect(200);

    const res = await t
      .http()
      .get(`${API}/events.ics?start_date=2027-02-01&end_date=2027-06-30`)
      .buffer(true)
      .parse(rawBody)
      .expect(200);
    const result = parseIcalendar(res.body as Buffer, { defaultZone: 'UTC' });

    const seriesRecord = (await api.get(`/events/${series.id}`).expect(200)).body as Json;
    const venueName = 'Muziekcentrum, Lange Viestraat 2, Utrecht';
    const shared = {
      venue: {
        key: expect.stringMatching(/^loc-/),
        name: venueName,
        geo: { lat: 52.0929, lng: 5.1154 },
      },
      organizer: {
        key: expect.stringMatching(/^org-/),
        name: 'Koor De Stem',
        email: 'bestuur@koordestem.example',
      },
      categories: ['Muziek'],
    };
    const expected = (fields: Partial<ImportItem>) => ({
      recurrenceId: null,
      description: '',
      allDay: false,
      recurrence: [],
      venue: null,
      organizer: null,
      categories: [],
      status: 'confirmed',
      visibility: 'public',
      sequence: expect.any(Number),
      lastModified: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      hash: expect.stringMatching(/^[\w-]{43}$/),
      ...fields,
    });
    const byStart = (a: ImportItem, b: ImportItem) => a.start.local.localeCompare(b.start.local);
    expect(result.skipped).toEqual([]);
    expect(result.refused).toBeNull();
    expect([...result.items].sort(byStart)).toEqual([
      expected({
        uid: uid(series.id),
        title: seriesRecord.title,
        description: 'Iedereen welkom.',
        start: at(seriesRecord.start_date, 'Europe/Amsterdam'),
        end: at(seriesRecord.end_date, 'Europe/Amsterdam'),
        // The export writes a date-only UNTIL as 23:59:59 of that day in the zone, in UTC.
        recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T215959Z', exdate],
        url: seriesRecord.url,
        ...shared,
      }),
      expected({
        uid: uid(utc.id),
        title: 'Webinar',
        start: at('2027-03-10 18:00:00', 'UTC'),
        end: at('2027-03-10 19:30:00', 'UTC'),
        url: utc.url,
      }),
      expected({
        uid: uid(series.id),
        recurrenceId: at('2027-04-06 19:00:00', 'Europe/Amsterdam'),
        title: 'Koor: generale',
        description: 'Iedereen welkom.',
        start: at('2027-04-06 18:30:00', 'Europe/Amsterdam'),
        end: at('2027-04-06 22:00:00', 'Europe/Amsterdam'),
        url: occurrences[4].url,
        ...shared,
      }),
      expected({
        uid: uid(allDay.id),
        title: 'Boekenmarkt',
        allDay: true,
        // All-day dates carry no zone in iCalendar: the feed's X-WR-TIMEZONE, not the parser's default.
        start: at('2027-05-01 00:00:00', 'Europe/Amsterdam'),
        end: at('2027-05-02 23:59:59', 'Europe/Amsterdam'),
        url: allDay.url,
      }),
    ]);
    // The deleted occurrence is the EXDATE the series' JSON record holds.
    expect(seriesRecord.recurrence).toContain(exdate);

    // The same feed read twice: the same hashes (a re-import would write nothing).
    const again = await t
      .http()
      .get(`${API}/events.ics?start_date=2027-02-01&end_date=2027-06-30`)
      .buffer(true)
      .parse(rawBody)
      .expect(200);
    const hashes = (items: ImportItem[]) => items.map((item) => item.hash);
    expect(hashes(parseIcalendar(again.body as Buffer, { defaultZone: 'UTC' }).items)).toEqual(
      hashes(result.items),
    );
  });
});
