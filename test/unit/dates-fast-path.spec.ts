import fc from 'fast-check';
import { DateTime, FixedOffsetZone } from 'luxon';
import {
  epochToWire,
  isDateInput,
  parseDateInput,
  parseZone,
  toWire,
  utcWire,
  WIRE_FORMAT,
  wireDetails,
  zoneIso,
  zoneWire,
} from '../../src/common/time/dates';
import { zoneAbbreviation } from '../../src/events/event-times';

/** zoneAbbreviation of a DateTime's instant and zone. */
const abbreviation = (at: DateTime, name: string) =>
  zoneAbbreviation(at.toSeconds(), at.zone, name);

/*
 * The mappers format dates without luxon's format parser and cache zones and
 * abbreviations; these properties hold them to luxon's own answers.
 */
const ZONES = [
  'UTC',
  'UTC+2',
  'UTC-3:30',
  'Europe/Amsterdam',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'Asia/Riyadh',
];
/** 0001-01-02 … 9999-12-30: every instant any zone shows with a four-digit year. */
const epochs = fc.integer({ min: -62135510400, max: 253402128000 });
const zone = fc.constantFrom(...ZONES);

describe('date fast paths', () => {
  it('toWire and epochToWire write what luxon formats, in every zone', () => {
    fc.assert(
      fc.property(epochs, zone, (seconds, name) => {
        const dt = DateTime.fromSeconds(seconds, { zone: parseZone(name) });
        expect(toWire(dt)).toBe(dt.toFormat(WIRE_FORMAT));
        expect(epochToWire(seconds, name)).toBe(dt.toFormat(WIRE_FORMAT));
        expect(zoneWire(seconds, dt.zone)).toBe(dt.toFormat(WIRE_FORMAT));
      }),
      { numRuns: 2000, seed: 20261123 },
    );
  });

  it('zoneIso writes what luxon writes as ISO without milliseconds, in every zone', () => {
    const iso = (seconds: number, name: string) =>
      DateTime.fromSeconds(seconds, { zone: parseZone(name) }).toISO({ suppressMilliseconds: true });
    fc.assert(
      fc.property(epochs, zone, (seconds, name) => {
        const at = parseZone(name) as NonNullable<ReturnType<typeof parseZone>>;
        expect(zoneIso(seconds, at)).toBe(iso(seconds, name));
      }),
      { numRuns: 2000, seed: 20261128 },
    );
    // Zero offsets (Z only for a fixed one), a half-hour west, local mean time, the year edges.
    const cases: Array<[number, string]> = [
      [3786900000, 'UTC'],
      [3786900000, 'UTC+0'],
      [3786900000, 'Europe/London'],
      [3786900000, 'UTC-3:30'],
      [3786900000, 'America/St_Johns'],
      [-4102444800, 'Europe/Amsterdam'],
      [-4102444800, 'Asia/Kolkata'],
      [-62135596800, 'UTC'],
      [-62135596800, 'America/New_York'],
      [253402300799, 'Asia/Kolkata'],
    ];
    for (const [seconds, name] of cases) {
      expect(zoneIso(seconds, parseZone(name) as NonNullable<ReturnType<typeof parseZone>>)).toBe(
        iso(seconds, name),
      );
    }
  });

  it('utcWire writes the UTC wire date', () => {
    fc.assert(
      fc.property(epochs, (seconds) => {
        expect(utcWire(seconds)).toBe(
          DateTime.fromSeconds(seconds, { zone: 'UTC' }).toFormat(WIRE_FORMAT),
        );
      }),
      { numRuns: 2000, seed: 20261123 },
    );
  });

  it('utcWire (day cached, time by arithmetic) equals the ISO form, on cached days and at the edges', () => {
    const iso = (seconds: number) =>
      new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
    // Few days, many times: most calls hit the day cache.
    const sameDays = fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: 0, max: 86_399 }));
    fc.assert(
      fc.property(sameDays, ([day, time]) => {
        const seconds = 1_800_000_000 + day * 86_400 + time;
        expect(utcWire(seconds)).toBe(iso(seconds));
      }),
      { numRuns: 2000, seed: 20261125 },
    );
    for (const seconds of [
      -62135596800, -62135596801, 253402300799, 253402300800, -1, 0, 86_399, 86_400, 1.5, -0.5,
    ]) {
      expect(utcWire(seconds)).toBe(iso(seconds));
    }
  });

  it('wireDetails gives the zero-padded parts luxon gives', () => {
    const dt = DateTime.fromObject(
      { year: 2027, month: 3, day: 8, hour: 7, minute: 5, second: 9 },
      { zone: 'Europe/Amsterdam' },
    );
    expect(wireDetails(toWire(dt))).toEqual({
      year: '2027',
      month: '03',
      day: '08',
      hour: '07',
      minutes: '05',
      seconds: '09',
    });
  });

  it('parseZone answers the same zone for a name every time and rejects unknown names', () => {
    expect(parseZone('Europe/Amsterdam')).toBe(parseZone('Europe/Amsterdam'));
    expect(parseZone('Europe/Atlantis')).toBeUndefined();
    expect(parseZone('Europe/Atlantis')).toBeUndefined();
    expect(parseZone('UTC+15')).toBeUndefined();
    expect(parseZone('UTC+5:30')?.offset(0)).toBe(330);
  });

  it('zoneAbbreviation follows daylight saving time across repeated calls', () => {
    const at = (iso: string, name: string) => DateTime.fromISO(iso, { zone: parseZone(name) });
    for (let i = 0; i < 3; i++) {
      expect(abbreviation(at('2027-01-15T12:00', 'Europe/Amsterdam'), 'Europe/Amsterdam')).toBe(
        'CET',
      );
      expect(abbreviation(at('2027-07-15T12:00', 'Europe/Amsterdam'), 'Europe/Amsterdam')).toBe(
        'CEST',
      );
      expect(abbreviation(at('2027-01-15T12:00', 'America/New_York'), 'America/New_York')).toBe(
        'EST',
      );
      expect(abbreviation(at('2027-07-15T12:00', 'America/New_York'), 'America/New_York')).toBe(
        'EDT',
      );
      expect(abbreviation(at('2027-07-15T12:00', 'Asia/Riyadh'), 'Asia/Riyadh')).toBe('+03');
      expect(abbreviation(at('2027-07-15T12:00', 'UTC+2'), 'UTC+2')).toBe('UTC+2');
    }
  });

  it('isDateInput answers what parseDateInput does, for wire forms valid and not', () => {
    const digits = (length: number) =>
      fc.integer({ min: 0, max: 10 ** length - 1 }).map((n) => String(n).padStart(length, '0'));
    const wire = fc
      .tuple(digits(4), digits(2), digits(2), fc.option(fc.tuple(digits(2), digits(2), fc.option(digits(2)))))
      .map(([y, m, d, time]) => {
        const clock = time ? ` ${time[0]}:${time[1]}${time[2] === null ? '' : `:${time[2]}`}` : '';
        return `${y}-${m}-${d}${clock}`;
      });
    // Mostly near the ranges' edges: days 28–31, hours 23–24, minutes and seconds 59–60.
    const edge = fc
      .tuple(
        fc.constantFrom('0999', '1000', '1900', '2000', '2023', '2024', '2100', '9999'),
        fc.constantFrom('00', '01', '02', '04', '12', '13'),
        fc.constantFrom('00', '01', '28', '29', '30', '31', '32'),
        fc.constantFrom('', ' 00:00', ' 23:59:59', ' 24:00', ' 24:00:00', ' 24:00:01', ' 12:60', ' 12:00:60', ' 7:00'),
      )
      .map(([y, m, d, clock]) => `${y}-${m}-${d}${clock}`);
    const utc = FixedOffsetZone.utcInstance;
    fc.assert(
      fc.property(fc.oneof(wire, edge), fc.constantFrom('', ' ', '\t'), (text, pad) => {
        const value = `${pad}${text}${pad}`;
        expect(isDateInput(value)).toBe(parseDateInput(value, utc) !== undefined);
      }),
      { numRuns: 5000 },
    );
  });
});
