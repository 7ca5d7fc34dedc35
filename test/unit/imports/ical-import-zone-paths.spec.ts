import fc from 'fast-check';
import { Settings } from 'luxon';
import type { parseIcalendar as Parse } from '../../../src/imports/ical-import-parser';
import { generatedFeed } from '../../../scripts/bench-import';
import { fixture } from './ical-fixtures';
import { luxonInstantOf, luxonWallAt } from './luxon-zones';

/*
 * The parser with the zone offsets asked once per zone and day
 * (src/imports/zone-offsets.ts) gives the same items, hashes included, as
 * with every conversion made by luxon: on the hand-written feeds, on the
 * bench's feed and on generated feeds full of zones and daylight-saving changes.
 */

type Parser = typeof Parse;

function loadParser(withLuxon: boolean): Parser {
  let parser: Parser | undefined;
  jest.isolateModules(() => {
    if (withLuxon) {
      jest.doMock('../../../src/imports/zone-offsets', () => ({
        instantOf: luxonInstantOf,
        wallAt: luxonWallAt,
      }));
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    parser = (require('../../../src/imports/ical-import-parser') as { parseIcalendar: Parser })
      .parseIcalendar;
  });
  jest.dontMock('../../../src/imports/zone-offsets');
  return parser as Parser;
}

const fast = loadParser(false);
const plain = loadParser(true);

const both = (body: string | Buffer, defaultZone = 'Europe/Amsterdam') => {
  const options = { defaultZone };
  return [fast(body, options), plain(body, options)];
};

const ZONES = [
  'Europe/Amsterdam',
  'America/New_York',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Kolkata',
  'America/St_Johns',
  'Africa/Casablanca',
  'W. Europe Standard Time',
  'Pacific Standard Time',
  '/mozilla.org/20050126_1/Europe/Berlin',
  'UTC',
];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const stamp = fc
  .tuple(
    fc.integer({ min: 1990, max: 2040 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
    fc.integer({ min: 0, max: 23 }),
    fc.constantFrom(0, 15, 30, 45),
  )
  // Daylight-saving changes are at the ends of March and October in Europe, in March and November in America.
  .map(([y, mo, d, h, mi]) => ({ date: `${y}${pad(mo)}${pad(d)}`, time: `${pad(h)}${pad(mi)}00` }));

const vevent = fc.record({
  start: stamp,
  startZone: fc.option(fc.constantFrom(...ZONES)),
  endZone: fc.option(fc.constantFrom(...ZONES)),
  minutes: fc.integer({ min: 0, max: 3 * 24 * 60 }),
  utc: fc.boolean(),
  allDay: fc.boolean(),
  rule: fc.option(fc.constantFrom('FREQ=WEEKLY;COUNT=10', 'FREQ=DAILY;UNTIL=20500101T000000Z')),
  exdate: fc.option(stamp),
  instance: fc.option(stamp),
});

type GeneratedVevent = typeof vevent extends fc.Arbitrary<infer T> ? T : never;

function veventLines(event: GeneratedVevent, index: number): string[] {
  const { date, time } = event.start;
  const when = (zone: string | null, at: { date: string; time: string }) => {
    if (event.allDay) return `;VALUE=DATE:${at.date}`;
    if (event.utc) return `:${at.date}T${at.time}Z`;
    return zone ? `;TZID=${zone}:${at.date}T${at.time}` : `:${at.date}T${at.time}`;
  };
  const end = new Date(
    Date.UTC(+date.slice(0, 4), +date.slice(4, 6) - 1, +date.slice(6, 8), +time.slice(0, 2), +time.slice(2, 4)) +
      event.minutes * 60_000,
  );
  const endStamp = {
    date: `${end.getUTCFullYear()}${pad(end.getUTCMonth() + 1)}${pad(end.getUTCDate())}`,
    time: `${pad(end.getUTCHours())}${pad(end.getUTCMinutes())}00`,
  };
  const lines = [
    'BEGIN:VEVENT',
    `UID:generated-${index}@example.org`,
    `DTSTART${when(event.startZone, event.start)}`,
    `DTEND${when(event.endZone ?? event.startZone, endStamp)}`,
    `SUMMARY:Event ${index}`,
  ];
  if (event.rule) lines.push(`RRULE:${event.rule}`);
  if (event.rule && event.exdate) lines.push(`EXDATE${when(event.startZone, event.exdate)}`);
  lines.push('END:VEVENT');
  if (event.instance) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:generated-${index}@example.org`,
      `RECURRENCE-ID${when(event.startZone, event.instance)}`,
      `DTSTART${when(event.startZone, event.instance)}`,
      `SUMMARY:Event ${index}, moved`,
      'END:VEVENT',
    );
  }
  return lines;
}

describe('iCalendar import parser: zone offsets once per day, or luxon every time', () => {
  it.each(['google.ics', 'outlook.ics', 'apple.ics', 'calendar-service.ics'])(
    'gives the same items for %s',
    (name) => {
      const [withCache, withLuxon] = both(fixture(name));
      expect(withCache.items.length).toBeGreaterThan(0);
      expect(withCache).toEqual(withLuxon);
    },
  );

  it("gives the same items for the bench's feed", () => {
    const [withCache, withLuxon] = both(generatedFeed(1000, 100));
    expect(withCache.items).toHaveLength(1000);
    expect(withCache).toEqual(withLuxon);
  });

  it('gives the same items for generated feeds', () => {
    fc.assert(
      fc.property(
        fc.array(vevent, { minLength: 1, maxLength: 20 }),
        fc.constantFrom('Europe/Amsterdam', 'America/New_York', 'UTC'),
        (events, defaultZone) => {
          const body = [
            'BEGIN:VCALENDAR',
            'VERSION:2.0',
            ...events.flatMap(veventLines),
            'END:VCALENDAR',
          ].join('\r\n');
          const [withCache, withLuxon] = both(body, defaultZone);
          expect(withCache).toEqual(withLuxon);
        },
      ),
      { numRuns: 300, seed: 20261128 },
    );
  });

  it('reads the hour the clocks go back as its first time, whatever the date of the parse', () => {
    const body = [
      'BEGIN:VCALENDAR',
      'BEGIN:VEVENT',
      'UID:back@example.org',
      'SUMMARY:Nachtconcert',
      'DTSTART;TZID=Europe/Amsterdam:20271031T023000',
      'DURATION:PT1H',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const saved = Settings.now;
    const parsedOn = (now: number) => {
      Settings.now = () => now;
      try {
        return fast(body, { defaultZone: 'Europe/Amsterdam' }).items;
      } finally {
        Settings.now = saved;
      }
    };
    const summer = parsedOn(Date.UTC(2027, 6, 1));
    // 02:30 summer time (00:30 UTC) and an hour: 02:30 winter time.
    expect(summer[0].end).toEqual({ local: '2027-10-31 02:30:00', timezone: 'Europe/Amsterdam' });
    expect(parsedOn(Date.UTC(2027, 0, 1))).toEqual(summer);
  });
});
