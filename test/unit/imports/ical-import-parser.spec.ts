import { parseIcalendar } from '../../../src/imports/ical-import-parser';
import type { ImportItem, ImportParseResult } from '../../../src/imports/import-item';
import { aKey, at, fixture, item } from './ical-fixtures';

/*
 * Known answers: every item each hand-written feed gives, field by field, and
 * every VEVENT it skips with the reason (docs/api.md "Imports (draft: parsing rules)").
 */

const parse = (body: string | Buffer, defaultZone = 'Europe/Amsterdam') =>
  parseIcalendar(body, { defaultZone });

const AMS = 'Europe/Amsterdam';

describe('iCalendar import parser: Google Calendar export', () => {
  let result: ImportParseResult;
  beforeAll(() => (result = parse(fixture('google.ics'))));

  it('gives the series, its moved and cancelled instances, an all-day and a UTC event', () => {
    const series = '3k1v0h6q2lq8n5o0p9r4s7t1u2@google.com';
    const choir = {
      key: aKey('org'),
      name: 'Koor De Stem',
      email: 'bestuur@koordestem.example',
    };
    expect(result).toEqual({
      items: [
        item({
          uid: series,
          title: 'Koorrepetitie',
          description:
            'Wekelijkse repetitie van het koor.\nNeem je eigen map mee; de <b>bladmuziek</b> ligt klaar.\n\nVragen? Mail het bestuur, of bel.',
          start: at('2027-03-02 19:00:00', AMS),
          end: at('2027-03-02 21:30:00', AMS),
          recurrence: [
            'RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T165959Z',
            'EXDATE;VALUE=DATE:20270316,20270330',
          ],
          venue: {
            key: aKey('loc'),
            name: 'Muziekcentrum, Zaal 2, Lange Viestraat 2, 3511 BK Utrecht, Nederland',
            geo: null,
          },
          organizer: choir,
          sequence: 2,
          lastModified: '2026-11-20 14:30:00',
        }),
        item({
          uid: series,
          recurrenceId: at('2027-04-06 19:00:00', AMS),
          title: 'Koorrepetitie (generale)',
          description: 'Generale repetitie: een uur later.',
          start: at('2027-04-06 20:00:00', AMS),
          end: at('2027-04-06 22:30:00', AMS),
          venue: {
            key: aKey('loc'),
            name: 'Muziekcentrum, Grote Zaal, Lange Viestraat 2, 3511 BK Utrecht',
            geo: null,
          },
          organizer: choir,
          sequence: 3,
          lastModified: '2026-11-21 08:00:00',
        }),
        item({
          uid: series,
          recurrenceId: at('2027-04-13 19:00:00', AMS),
          title: 'Koorrepetitie',
          start: at('2027-04-13 19:00:00', AMS),
          end: at('2027-04-13 21:30:00', AMS),
          status: 'cancelled',
          sequence: 3,
          lastModified: '2026-11-22 08:00:00',
        }),
        item({
          uid: '7f2c9a1be04d@google.com',
          title: 'Koningsdag',
          allDay: true,
          start: at('2027-04-27 00:00:00', AMS),
          end: at('2027-04-27 23:59:59', AMS),
          categories: ['Feestdag'],
          lastModified: '2026-11-02 10:00:00',
        }),
        item({
          uid: '0a9b8c7d6e5f@google.com',
          title: 'Lezing: Utrecht in de Middeleeuwen',
          description:
            'Lezing over de stadsgeschiedenis. Zie https://example.org/lezing voor kaarten.',
          start: at('2027-01-15 11:00:00', 'UTC'),
          end: at('2027-01-15 12:30:00', 'UTC'),
          url: 'https://example.org/lezing?id=42&lang=nl',
          status: 'tentative',
          lastModified: '2026-11-03 12:00:00',
        }),
      ],
      skipped: [],
      refused: null,
      calendarName: 'Stadsagenda Utrecht',
    });
  });

  it('names one organizer by one key, and two locations by two', () => {
    const [series, moved] = result.items;
    expect(moved.organizer?.key).toBe(series.organizer?.key);
    expect(moved.venue?.key).not.toBe(series.venue?.key);
  });
});

describe('iCalendar import parser: Outlook export', () => {
  it('maps Windows zone names, reads a custom VTIMEZONE as UTC, and skips the broken and unknown ones', () => {
    const outlookUid = (tail: string) => `040000008200E00074C5B7101A82E008${tail}`;
    expect(parse(fixture('outlook.ics'))).toEqual({
      items: [
        item({
          uid: outlookUid(
            '0000000010B6E1A2C3D4D90100000000000000001000000076A1B2C3D4E5F60718293A4B5C6D7E8F',
          ),
          title: 'Huurdersoverleg',
          description:
            'Maandelijks overleg met de huurders.\n\nAgenda:\n1. Opening\n2. Rondvraag\n',
          // "W. Europe Standard Time" (with its VTIMEZONE) is CLDR's Europe/Berlin.
          start: at('2027-02-09 10:00:00', 'Europe/Berlin'),
          end: at('2027-02-09 11:30:00', 'Europe/Berlin'),
          recurrence: [
            'RRULE:FREQ=MONTHLY;COUNT=10;BYDAY=2TU',
            'EXDATE;VALUE=DATE:20270413,20270511',
          ],
          venue: { key: aKey('loc'), name: 'Stadskantoor, vergaderzaal 4.12', geo: null },
          sequence: 1,
          lastModified: '2026-11-15 12:45:00',
        }),
        item({
          uid: outlookUid(
            '00000000A1B2C3D4E5F6D90100000000000000001000000011223344556677889900AABBCCDDEEFF',
          ),
          title: 'Heidagen afdeling',
          allDay: true,
          // No X-WR-TIMEZONE: all-day dates are read in the import's zone.
          start: at('2027-03-18 00:00:00', AMS),
          end: at('2027-03-19 23:59:59', AMS),
          categories: ['Personeel', 'Intern'],
          visibility: 'private',
          lastModified: '2026-11-12 08:00:00',
        }),
        item({
          uid: outlookUid('00000000FFEEDDCCBBAA9988'),
          title: 'Call with the New York office',
          // A Windows name without a VTIMEZONE.
          start: at('2027-03-05 09:00:00', 'America/New_York'),
          end: at('2027-03-05 10:00:00', 'America/New_York'),
          venue: { key: aKey('loc'), name: 'Microsoft Teams-vergadering', geo: null },
          organizer: { key: aKey('org'), name: 'Jansen, P.', email: 'p.jansen@gemeente.example' },
          lastModified: '2026-11-13 08:00:00',
        }),
        item({
          uid: outlookUid('0000000012345678'),
          title: 'Partner call (Mumbai)',
          // "Customized Time Zone" (+05:30) names no IANA zone: its instant, in UTC.
          start: at('2027-03-10 09:00:00', 'UTC'),
          end: at('2027-03-10 10:30:00', 'UTC'),
          lastModified: '2026-11-14 08:00:00',
        }),
      ],
      skipped: [
        {
          index: 5,
          uid: outlookUid('000000BROKEN'),
          reason: 'malformed',
          detail: expect.any(String),
        },
        {
          index: 6,
          uid: outlookUid('000000NOZONE'),
          reason: 'unknown_timezone',
          detail: 'DTSTART: unknown TZID "Pacific/Atlantis Standard Time"',
        },
      ],
      refused: null,
      calendarName: 'Facilitaire agenda',
    });
  });
});

describe('iCalendar import parser: Apple Calendar export', () => {
  it('reads GEO, escapes, DURATION, RDATE, floating times, and skips no-UID and hourly rules', () => {
    const NY = 'America/New_York';
    expect(parse(fixture('apple.ics'))).toEqual({
      items: [
        item({
          uid: '6B1C0F3E-9A2D-4C1B-8E7F-2D3C4B5A6978',
          title: 'Symphony: Ode to Joy',
          description:
            'Première: "Ode to Joy" – tickets €45 / $49 🎻\nBring: \\backslash & semicolons; commas,',
          start: at('2027-03-05 19:30:00', NY),
          end: at('2027-03-05 22:00:00', NY),
          venue: {
            key: aKey('loc'),
            name: 'Lincoln Center, David Geffen Hall, 10 Lincoln Center Plaza, New York, NY 10023, United States',
            geo: { lat: 40.772464, lng: -73.983489 },
          },
          url: 'https://example.com/ode?x=1',
          sequence: 4,
          lastModified: '2026-11-25 09:30:00',
        }),
        item({
          uid: 'C0FFEE00-1111-2222-3333-444455556666',
          title: 'Independence Day',
          allDay: true,
          // X-WR-TIMEZONE names the zone of all-day and floating dates.
          start: at('2027-07-04 00:00:00', NY),
          end: at('2027-07-04 23:59:59', NY),
          recurrence: ['RRULE:FREQ=YEARLY'],
        }),
        item({
          uid: '0D1E2F3A-4B5C-6D7E-8F90-A1B2C3D4E5F6',
          title: 'Matinee in London',
          // An IANA TZID without a VTIMEZONE; DURATION instead of DTEND.
          start: at('2027-03-20 14:30:00', 'Europe/London'),
          end: at('2027-03-20 16:45:00', 'Europe/London'),
          recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3', 'RDATE;VALUE=DATE:20270327'],
          categories: ['Theater', 'Familie'],
        }),
        item({
          uid: 'FLOATING-0001',
          title: 'Film night (floating time)',
          start: at('2027-04-01 18:30:00', NY),
          end: at('2027-04-01 20:00:00', NY),
        }),
      ],
      skipped: [
        { index: 5, uid: null, reason: 'missing_uid', detail: 'no UID' },
        {
          index: 6,
          uid: 'HOURLY-0001',
          reason: 'unsupported_recurrence',
          detail: 'line 1: recurrenceFiner (FREQ=HOURLY)',
        },
      ],
      refused: null,
      calendarName: 'Theater & Film',
    });
  });
});

describe('iCalendar import parser: our own /events.ics', () => {
  it('gives back the series with its exceptions, the detached occurrence, all-day and private events', () => {
    const venue = {
      key: aKey('loc'),
      name: 'Muziekcentrum, Lange Viestraat 2, Utrecht, 3511 BK, NL',
      geo: { lat: 52.0929, lng: 5.1154 },
    };
    const organizer = {
      key: aKey('org'),
      name: 'Koor De Stem',
      email: 'bestuur@koordestem.example',
    };
    const result = parse(fixture('calendar-service.ics'));
    expect(result).toEqual({
      items: [
        item({
          uid: '12@calendar.test',
          title: 'Koor',
          description:
            'Repetitie voor het voorjaarsconcert. Iedereen is welkom, ook zonder ervaring.',
          start: at('2027-03-02 19:00:00', AMS),
          end: at('2027-03-02 21:00:00', AMS),
          recurrence: [
            'RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T215959Z',
            'EXDATE;VALUE=DATE:20270316,20270323',
          ],
          venue,
          organizer,
          categories: ['Muziek', 'Koren'],
          url: 'https://calendar.test/events/koor/',
          sequence: 3,
          lastModified: '2026-11-27 09:30:00',
        }),
        item({
          uid: '12@calendar.test',
          recurrenceId: at('2027-04-06 19:00:00', AMS),
          title: 'Koor (generale repetitie)',
          start: at('2027-04-06 19:30:00', AMS),
          end: at('2027-04-06 22:30:00', AMS),
          venue,
          organizer,
          categories: ['Muziek', 'Koren'],
          url: 'https://calendar.test/events/koor-2027-04-06/',
          sequence: 3,
          lastModified: '2026-11-27 09:30:00',
        }),
        item({
          uid: '15@calendar.test',
          title: 'Boekenmarkt',
          description: 'Twee dagen tweedehands boeken op het Vredenburgplein.',
          allDay: true,
          start: at('2027-05-01 00:00:00', AMS),
          end: at('2027-05-02 23:59:59', AMS),
          categories: ['Markt'],
          url: 'https://calendar.test/events/boekenmarkt/',
          sequence: 1,
          lastModified: '2026-11-26 12:00:00',
        }),
        item({
          uid: '16@calendar.test',
          title: 'Besloten bestuursvergadering',
          start: at('2027-01-10 18:00:00', 'UTC'),
          end: at('2027-01-10 20:00:00', 'UTC'),
          url: 'https://calendar.test/events/bestuur/',
          status: 'tentative',
          visibility: 'private',
          lastModified: '2026-11-26 13:00:00',
        }),
      ],
      skipped: [],
      refused: null,
      calendarName: 'Evenementen',
    });
    // The same venue text and coordinates, the same e-mail: one key each, also across feeds.
    expect(result.items[1].venue?.key).toBe(result.items[0].venue?.key);
    const google = parse(fixture('google.ics'));
    expect(google.items[0].organizer?.key).toBe(result.items[0].organizer?.key);
  });
});

describe('iCalendar import parser: content hash', () => {
  const base = fixture('calendar-service.ics').toString('utf8');
  const hashes = (text: string) => parse(text).items.map((entry: ImportItem) => entry.hash);

  it('is the same for the same feed, also when only DTSTAMP, SEQUENCE or LAST-MODIFIED move', () => {
    const restamped = base
      .replaceAll('DTSTAMP:20261127T093000Z', 'DTSTAMP:20270101T000000Z')
      .replace('SEQUENCE:3', 'SEQUENCE:9')
      .replace('LAST-MODIFIED:20261127T093000Z', 'LAST-MODIFIED:20261231T000000Z');
    expect(hashes(restamped)).toEqual(hashes(base));
    expect(new Set(hashes(base)).size).toBe(4);
  });

  it('changes for the item whose content changed, and only for it', () => {
    const before = hashes(base);
    const after = hashes(base.replace('SUMMARY:Boekenmarkt', 'SUMMARY:Boekenmarkt en platen'));
    expect(after.map((hash, i) => hash === before[i])).toEqual([true, true, false, true]);
    const moved = hashes(
      base.replace('DTSTART;VALUE=DATE:20270501', 'DTSTART;VALUE=DATE:20270430'),
    );
    expect(moved[2]).not.toBe(before[2]);
  });
});
