import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';
import { RRule, RRuleSet, rrulestr } from 'rrule';
import { resolveEventTimes } from '../../src/events/event-times';
import { wallClockInstant } from '../../src/common/time/dates';
import {
  horizonDate,
  occurrenceDates,
  occurrenceTimes,
} from '../../src/events/recurrence/occurrences';
import { parseRecurrence } from '../../src/events/recurrence/recurrence-lines';
import { walkRule } from '../../src/events/recurrence/rule-walk';
import { errorOf } from './helpers/error-of';

const AMSTERDAM = IANAZone.create('Europe/Amsterdam');
const NEW_YORK = IANAZone.create('America/New_York');

/** The occurrences after the series itself, up to `through`, as [start, end] wall-clock pairs. */
function expand(
  lines: string[],
  start: string,
  end: string,
  zoneName: string,
  through: string,
  allDay = false,
): Array<[string, string]> {
  const zone = IANAZone.create(zoneName);
  const series = resolveEventTimes(
    { start_date: start, end_date: end, timezone: zoneName, all_day: allDay },
    undefined,
    'UTC',
  );
  return occurrenceDates(parseRecurrence(lines, zone), series, zone, through).map((date) => {
    const times = occurrenceTimes(date, series, zone);
    return [times.startLocal, times.endLocal];
  });
}

describe('recurrence', () => {
  describe('expansion against known calendars', () => {
    it('weekly on Tuesday and Thursday until a UTC time', () => {
      expect(
        expand(
          ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270119T235959Z'],
          '2027-01-05 19:00:00',
          '2027-01-05 21:00:00',
          'Europe/Amsterdam',
          '2030-01-01',
        ),
      ).toEqual([
        ['2027-01-07 19:00:00', '2027-01-07 21:00:00'],
        ['2027-01-12 19:00:00', '2027-01-12 21:00:00'],
        ['2027-01-14 19:00:00', '2027-01-14 21:00:00'],
        ['2027-01-19 19:00:00', '2027-01-19 21:00:00'],
      ]);
    });

    it('UNTIL is read as an instant: 18:00Z is 19:00 in Amsterdam, so that day still counts', () => {
      const lines = ['RRULE:FREQ=DAILY;UNTIL=20270107T180000Z'];
      expect(
        expand(
          lines,
          '2027-01-05 19:00:00',
          '2027-01-05 20:00:00',
          'Europe/Amsterdam',
          '2028-01-01',
        ).map(([s]) => s),
      ).toEqual(['2027-01-06 19:00:00', '2027-01-07 19:00:00']);
      const earlier = ['RRULE:FREQ=DAILY;UNTIL=20270107T175959Z'];
      expect(
        expand(
          earlier,
          '2027-01-05 19:00:00',
          '2027-01-05 20:00:00',
          'Europe/Amsterdam',
          '2028-01-01',
        ).map(([s]) => s),
      ).toEqual(['2027-01-06 19:00:00']);
    });

    it('a date-only UNTIL includes its whole day', () => {
      expect(
        expand(
          ['RRULE:FREQ=DAILY;UNTIL=20270107'],
          '2027-01-05 19:00:00',
          '2027-01-05 20:00:00',
          'UTC',
          '2028-01-01',
        ).map(([s]) => s),
      ).toEqual(['2027-01-06 19:00:00', '2027-01-07 19:00:00']);
    });

    it('monthly on the last Friday', () => {
      expect(
        expand(
          ['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=6'],
          '2027-01-29 10:00:00',
          '2027-01-29 16:00:00',
          'Europe/Amsterdam',
          '2030-01-01',
        ).map(([s]) => s),
      ).toEqual([
        '2027-02-26 10:00:00',
        '2027-03-26 10:00:00',
        '2027-04-30 10:00:00',
        '2027-05-28 10:00:00',
        '2027-06-25 10:00:00',
      ]);
    });

    it('yearly on 29 February only in leap years', () => {
      expect(
        expand(
          ['RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29'],
          '2028-02-29 12:00:00',
          '2028-02-29 13:00:00',
          'UTC',
          '2040-12-31',
        ).map(([s]) => s),
      ).toEqual(['2032-02-29 12:00:00', '2036-02-29 12:00:00', '2040-02-29 12:00:00']);
    });

    it('EXDATE removes dates and RDATE adds them (by their date in the event zone)', () => {
      expect(
        expand(
          [
            'RRULE:FREQ=WEEKLY;COUNT=4',
            'EXDATE;TZID=Europe/Amsterdam:20270112T190000',
            'RDATE;VALUE=DATE:20270110,20270130',
            'EXDATE:20270126T180000Z',
          ],
          '2027-01-05 19:00:00',
          '2027-01-05 21:00:00',
          'Europe/Amsterdam',
          '2030-01-01',
        ).map(([s]) => s),
      ).toEqual(['2027-01-10 19:00:00', '2027-01-19 19:00:00', '2027-01-30 19:00:00']);
    });

    it.each([
      ['Europe/Amsterdam', '2027-03-20', '2027-04-03', '+01:00', '+02:00'],
      ['Europe/Amsterdam', '2027-10-23', '2027-11-06', '+02:00', '+01:00'],
      ['America/New_York', '2027-03-12', '2027-03-20', '-05:00', '-04:00'],
      ['America/New_York', '2027-11-05', '2027-11-13', '-04:00', '-05:00'],
    ])(
      'a daily series in %s keeps 19:00 across the change (%s → %s)',
      (zoneName, first, last, before, after) => {
        const zone = IANAZone.create(zoneName);
        const series = resolveEventTimes(
          { start_date: `${first} 19:00:00`, end_date: `${first} 20:30:00`, timezone: zoneName },
          undefined,
          'UTC',
        );
        const dates = occurrenceDates(
          parseRecurrence(['RRULE:FREQ=DAILY'], zone),
          series,
          zone,
          last,
        );
        const occurrences = dates.map((date) => occurrenceTimes(date, series, zone));
        expect(occurrences.every((o) => o.startLocal.endsWith(' 19:00:00'))).toBe(true);
        expect(occurrences.every((o) => o.endLocal.endsWith(' 20:30:00'))).toBe(true);
        expect(occurrences.every((o) => o.endAt - o.startAt === 90 * 60)).toBe(true);
        const offsetOf = (seconds: number) =>
          DateTime.fromSeconds(seconds, { zone }).toFormat('ZZ');
        expect(offsetOf(occurrences[0].startAt)).toBe(before);
        expect(offsetOf(occurrences[occurrences.length - 1].startAt)).toBe(after);
        // The UTC time moves by the hour of the change, the wall clock does not.
        expect(occurrences[occurrences.length - 1].startAt - occurrences[0].startAt).not.toBe(
          (dates.length - 1) * 86_400,
        );
      },
    );

    it('an all-day series keeps whole days, also over the change', () => {
      expect(
        expand(
          ['RRULE:FREQ=WEEKLY;COUNT=3'],
          '2027-03-21',
          '2027-03-22',
          'Europe/Amsterdam',
          '2028-01-01',
          true,
        ),
      ).toEqual([
        ['2027-03-28 00:00:00', '2027-03-29 23:59:59'],
        ['2027-04-04 00:00:00', '2027-04-05 23:59:59'],
      ]);
    });

    it('stops at the horizon and after a given date', () => {
      const zone = IANAZone.create('UTC');
      const recurrence = parseRecurrence(['RRULE:FREQ=DAILY'], zone);
      const series = { startLocal: '2027-01-01 09:00:00' };
      expect(occurrenceDates(recurrence, series, zone, '2027-01-04')).toEqual([
        '2027-01-02',
        '2027-01-03',
        '2027-01-04',
      ]);
      expect(occurrenceDates(recurrence, series, zone, '2027-01-05', '2027-01-03')).toEqual([
        '2027-01-04',
        '2027-01-05',
      ]);
    });

    it('the horizon counts from the later of today and the start', () => {
      const now = DateTime.fromISO('2026-11-25T10:00:00Z');
      expect(horizonDate(now, { startLocal: '2020-01-01 10:00:00' }, AMSTERDAM, 24)).toBe(
        '2028-11-25',
      );
      expect(horizonDate(now, { startLocal: '2029-05-01 10:00:00' }, AMSTERDAM, 24)).toBe(
        '2031-05-01',
      );
    });
  });

  describe('wall-clock times that do not exist or exist twice (RFC 5545 §3.3.5)', () => {
    const wire = (seconds: number, zone: IANAZone) =>
      DateTime.fromSeconds(seconds, { zone }).toISO({ suppressMilliseconds: true });

    it('a time in the March gap moves forward by the gap', () => {
      expect(wire(wallClockInstant('2027-03-28 02:30:00', AMSTERDAM), AMSTERDAM)).toBe(
        '2027-03-28T03:30:00+02:00',
      );
      expect(wire(wallClockInstant('2027-03-14 02:30:00', NEW_YORK), NEW_YORK)).toBe(
        '2027-03-14T03:30:00-04:00',
      );
    });

    it('a time that occurs twice in October is the first of the two', () => {
      expect(wire(wallClockInstant('2027-10-31 02:30:00', AMSTERDAM), AMSTERDAM)).toBe(
        '2027-10-31T02:30:00+02:00',
      );
      expect(wire(wallClockInstant('2027-11-07 01:30:00', NEW_YORK), NEW_YORK)).toBe(
        '2027-11-07T01:30:00-04:00',
      );
    });
  });

  describe('validation', () => {
    it.each([
      [['WEEKLY'], 1, 'recurrenceLine', 'WEEKLY'],
      [['RRULE:FREQ=WEEKLY', 'RRULE:FREQ=DAILY'], 2, 'recurrenceSecondRule', 'RRULE'],
      [['RRULE:INTERVAL=2'], 1, 'recurrenceNoFreq', 'FREQ'],
      [['RRULE:FREQ=HOURLY'], 1, 'recurrenceFiner', 'FREQ=HOURLY'],
      [['RRULE:FREQ=DAILY;BYHOUR=9'], 1, 'recurrenceFiner', 'BYHOUR=9'],
      [['RRULE:FREQ=FORTNIGHTLY'], 1, 'recurrencePart', 'FREQ=FORTNIGHTLY'],
      [['RRULE:FREQ=WEEKLY;BYDAY=XX'], 1, 'recurrencePart', 'BYDAY=XX'],
      [['RRULE:FREQ=WEEKLY;BYDAY=-1FR'], 1, 'recurrencePart', 'BYDAY=-1FR'],
      [['RRULE:FREQ=MONTHLY;INTERVAL=abc'], 1, 'recurrencePart', 'INTERVAL=ABC'],
      [['RRULE:FREQ=MONTHLY;BYMONTHDAY=0'], 1, 'recurrencePart', 'BYMONTHDAY=0'],
      [['RRULE:FREQ=DAILY;BYSETPOS=1'], 1, 'recurrencePart', 'BYSETPOS=1'],
      [['RRULE:FREQ=DAILY;FOO=1'], 1, 'recurrencePart', 'FOO=1'],
      [['RRULE:FREQ=DAILY;COUNT=2;COUNT=3'], 1, 'recurrencePart', 'COUNT=3'],
      [['RRULE:FREQ=DAILY;COUNT=3;UNTIL=20270101'], 1, 'recurrenceCountUntil', 'COUNT, UNTIL'],
      [['RRULE:FREQ=DAILY;UNTIL=20270231'], 1, 'recurrencePart', 'UNTIL=20270231'],
      [['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30'], 1, 'recurrenceNever', 'BYMONTH=2'],
      [['RRULE:FREQ=DAILY', 'EXDATE:2027-01-01'], 2, 'recurrenceDate', '2027-01-01'],
      [['RDATE;TZID=Mars/Olympus:20270101T100000'], 1, 'recurrencePart', 'TZID=Mars/Olympus'],
      [['RDATE;VALUE=DATE:20270101T100000'], 1, 'recurrenceDate', '20270101T100000'],
      [['RDATE;VALUE=PERIOD:20270101T100000/PT1H'], 1, 'recurrencePart', 'VALUE=PERIOD'],
      [['EXDATE:'], 1, 'recurrencePart', ''],
    ])('%j → line %d, %s', (lines, line, reason, part) => {
      expect(errorOf(() => parseRecurrence(lines, AMSTERDAM)).details.invalid).toEqual({
        recurrence: { reason, args: { name: 'recurrence', line, part } },
      });
    });

    it('more occurrences than the cap up to the horizon → 400', () => {
      const zone = IANAZone.create('UTC');
      const error = errorOf(() =>
        occurrenceDates(
          parseRecurrence(['RRULE:FREQ=DAILY'], zone),
          { startLocal: '2000-01-01 10:00:00' },
          zone,
          '2030-01-01',
        ),
      );
      expect(error.details.invalid).toEqual({
        recurrence: { reason: 'recurrenceTooMany', args: { name: 'recurrence', max: 5000 } },
      });
    });

    it.each([
      ['RRULE:FREQ=WEEKLY;UNTIL=99991231T200000Z', 'Asia/Tokyo', 'UNTIL=99991231T200000Z'],
      ['RRULE:FREQ=WEEKLY;UNTIL=99991231T230000Z', 'Europe/Amsterdam', 'UNTIL=99991231T230000Z'],
      ['RRULE:FREQ=WEEKLY;UNTIL=99991231', 'America/New_York', 'UNTIL=99991231'],
      ['RRULE:FREQ=WEEKLY;UNTIL=99991231T220000', 'America/New_York', 'UNTIL=99991231T220000'],
      ['RRULE:FREQ=WEEKLY;UNTIL=10000101T010000Z', 'America/New_York', 'UNTIL=10000101T010000Z'],
      ['RDATE:99991231T200000Z', 'Asia/Tokyo', '99991231T200000Z'],
      ['EXDATE;TZID=Asia/Tokyo:10000101T050000', 'Europe/London', '10000101T050000'],
    ])('%s in %s is outside the years 1000–9999 there or in UTC → 400', (line, zone, part) => {
      expect(errorOf(() => parseRecurrence([line], IANAZone.create(zone))).details.invalid).toEqual(
        {
          recurrence: { reason: 'recurrenceYears', args: { name: 'recurrence', line: 1, part } },
        },
      );
    });

    it('the last UNTIL that fits is accepted and read to its day', () => {
      const zone = IANAZone.create('Asia/Tokyo');
      const recurrence = parseRecurrence(['RRULE:FREQ=YEARLY;UNTIL=99991231T145959Z'], zone);
      expect(
        occurrenceDates(recurrence, { startLocal: '9997-12-31 20:00:00' }, zone, '9999-12-31'),
      ).toEqual(['9998-12-31', '9999-12-31']);
    });

    it('lower-case names and parts are read like upper-case ones', () => {
      expect(parseRecurrence(['rrule:freq=weekly;byday=mo'], AMSTERDAM).rule).toEqual(
        RRule.parseString('FREQ=WEEKLY;BYDAY=MO'),
      );
    });
  });

  describe('a rule is walked only up to the horizon', () => {
    const UTC_ZONE = IANAZone.create('UTC');
    /** The rule's occurrences up to `through` and the periods the walk took to find them. */
    function walk(line: string, start: string, through: string) {
      const { rule } = parseRecurrence([line], UTC_ZONE);
      const dates: string[] = [];
      const steps = walkRule(
        new RRule({ ...rule, dtstart: new Date(`${start}Z`) }),
        new Date(`${through}T23:59:59Z`),
        (date) => {
          const day = date.toISOString().slice(0, 10);
          if (day > through) return false;
          dates.push(day);
          return true;
        },
      );
      return { dates, steps };
    }

    it.each([
      // Two years of days, weeks, months and years: the periods up to the horizon and no more.
      ['RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU', '2026-11-30T19:00:00', 106],
      ['RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=31', '2026-11-30T19:00:00', 26],
      ['RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1', '2026-11-30T19:00:00', 4],
    ])('%s from %s: no date, at most %d periods', (line, start, max) => {
      const { dates, steps } = walk(line, start, '2028-11-30');
      expect(dates).toEqual([]);
      expect(steps).toBeGreaterThan(0);
      expect(steps).toBeLessThanOrEqual(max);
    });

    /** The periods rrule walks while `run` runs (it reads `interval` once to start and twice a period). */
    function periodsWalked(run: () => void): number {
      const all = RRule.prototype.all;
      let reads = 0;
      const spy = jest.spyOn(RRule.prototype, 'all').mockImplementation(function (
        this: RRule,
        iterator,
      ) {
        const inner = this.options;
        const counting = Object.create(inner) as typeof inner;
        Object.defineProperty(counting, 'interval', {
          get: () => {
            reads++;
            return inner.interval;
          },
        });
        this.options = counting;
        try {
          return all.call(this, iterator) as Date[];
        } finally {
          this.options = inner;
        }
      });
      try {
        run();
      } finally {
        spy.mockRestore();
      }
      return Math.floor((reads - 1) / 2);
    }

    it.each([
      ['RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU', 106],
      ['RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=31', 26],
      ['RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1', 4],
    ])(
      'the expansion of %s (a Monday start, two years) gives nothing in at most %d periods',
      (line, max) => {
        let dates: string[] = ['not run'];
        const walked = periodsWalked(() => {
          dates = occurrenceDates(
            parseRecurrence([line], AMSTERDAM),
            { startLocal: '2026-11-30 19:00:00' },
            AMSTERDAM,
            '2028-11-30',
          );
        });
        expect(dates).toEqual([]);
        expect(walked).toBeLessThanOrEqual(max);
      },
    );

    it('a rule that stops matching ends its walk at the horizon, with every date before it', () => {
      // Leap days that are Mondays: 2016, 2044, 2072.
      const { dates, steps } = walk(
        'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO',
        '2010-01-01T10:00:00',
        '2050-12-31',
      );
      expect(dates).toEqual(['2016-02-29', '2044-02-29']);
      // The 14,974 days from the start to the horizon, and two of slack.
      expect(steps).toBeLessThanOrEqual(14_976);
    });

    it.each([
      ['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', '1900-01-01 10:00:00', 20_000],
      ['RRULE:FREQ=WEEKLY;BYMONTH=2;BYDAY=MO', '1700-01-01 10:00:00', 10_000],
      ['RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=31', '1500-01-01 10:00:00', 5_000],
      ['RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1', '1000-01-01 10:00:00', 800],
    ])('%s from %s needs more than %d periods to the horizon → 400', (line, start, max) => {
      const error = errorOf(() =>
        occurrenceDates(
          parseRecurrence([line], UTC_ZONE),
          { startLocal: start },
          UTC_ZONE,
          '2028-11-30',
        ),
      );
      expect(error.details.invalid).toEqual({
        recurrence: { reason: 'recurrenceTooLong', args: { name: 'recurrence', max } },
      });
    });

    it('the library walks such a rule to the year 9999 (why the walk is bounded)', () => {
      const rule = new RRule({
        ...parseRecurrence(['RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1'], UTC_ZONE).rule,
        dtstart: new Date('2026-11-30T19:00:00Z'),
      });
      let reads = 0;
      const options = rule.options;
      rule.options = new Proxy(options, {
        get: (target, key) => {
          if (key === 'interval') reads++;
          return target[key as keyof typeof target];
        },
      });
      expect(rule.all()).toEqual([]);
      expect((reads - 1) / 2).toBe(9999 - 2026 + 1);
    });
  });

  describe('property: the listed occurrences are the library expansion within the window', () => {
    const day = fc.constantFrom('MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU');
    const rule = fc.oneof(
      fc.record({
        freq: fc.constant('DAILY'),
        interval: fc.integer({ min: 1, max: 5 }),
        byday: fc.uniqueArray(day, { maxLength: 3 }),
      }),
      fc.record({
        freq: fc.constant('WEEKLY'),
        interval: fc.integer({ min: 1, max: 3 }),
        byday: fc.uniqueArray(day, { maxLength: 4 }),
      }),
      fc.record({
        freq: fc.constant('MONTHLY'),
        interval: fc.integer({ min: 1, max: 4 }),
        bymonthday: fc.uniqueArray(
          fc.integer({ min: -5, max: 31 }).filter((n) => n !== 0),
          {
            maxLength: 3,
          },
        ),
      }),
      fc.record({
        freq: fc.constant('YEARLY'),
        interval: fc.integer({ min: 1, max: 2 }),
        bymonth: fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { maxLength: 3 }),
      }),
    );
    const ending = fc.oneof(
      fc.constant(''),
      fc.integer({ min: 1, max: 40 }).map((n) => `;COUNT=${n}`),
      fc.integer({ min: 10, max: 400 }).map((days) => {
        const until = DateTime.fromISO('2027-01-01T00:00:00Z').plus({ days });
        return `;UNTIL=${until.toFormat("yyyyMMdd'T'HHmmss'Z'")}`;
      }),
    );

    it('for random rules, zones and starts', () => {
      fc.assert(
        fc.property(
          rule,
          ending,
          fc.constantFrom('Europe/Amsterdam', 'America/New_York', 'Asia/Kolkata', 'UTC'),
          fc.integer({ min: 0, max: 365 }),
          fc.integer({ min: 0, max: 23 }),
          fc.integer({ min: 30, max: 800 }),
          (parts, end, zoneName, startDay, hour, windowDays) => {
            const zone = IANAZone.create(zoneName);
            const start = DateTime.fromISO('2027-01-01', { zone: 'UTC' })
              .plus({ days: startDay, hours: hour })
              .toFormat('yyyy-MM-dd HH:mm:ss');
            const fields = Object.entries(parts)
              .filter(([, v]) => !Array.isArray(v) || v.length > 0)
              .map(([k, v]) => `${k.toUpperCase()}=${Array.isArray(v) ? v.join(',') : v}`);
            const line = `RRULE:${fields.join(';')}${end}`;
            const through = DateTime.fromISO(start.slice(0, 10))
              .plus({ days: windowDays })
              .toISODate() as string;
            const ours = occurrenceDates(
              parseRecurrence([line], zone),
              { startLocal: start },
              zone,
              through,
            );
            // The library on its own: the same lines with a floating DTSTART, UNTIL moved to the wall clock.
            const wallUntil = /UNTIL=(\w+)/.exec(line)?.[1];
            const floatingLine = wallUntil
              ? line.replace(
                  wallUntil,
                  DateTime.fromFormat(wallUntil, "yyyyMMdd'T'HHmmss'Z'", { zone: 'UTC' })
                    .setZone(zone)
                    .toFormat("yyyyMMdd'T'HHmmss"),
                )
              : line;
            const set = rrulestr(
              `DTSTART:${start.replace(/[-:]/g, '').replace(' ', 'T')}\n${floatingLine}`,
              { forceset: true },
            ) as RRuleSet;
            const library = set
              .between(
                new Date(`${start.slice(0, 10)}T23:59:59Z`),
                new Date(`${through}T23:59:59Z`),
                true,
              )
              .map((date) => date.toISOString().slice(0, 10));
            expect(ours).toEqual(library);
            // And each one starts at the series' wall-clock time unless that time does not exist that day.
            for (const date of ours) {
              const times = occurrenceTimes(
                date,
                { startLocal: start, endLocal: start, startAt: 0, endAt: 0, allDay: false },
                zone,
              );
              expect(times.date).toBe(date);
              const wall = `${date}${start.slice(10)}`;
              const exists =
                DateTime.fromSeconds(wallClockInstant(wall, zone), { zone }).toFormat(
                  'yyyy-MM-dd HH:mm:ss',
                ) === wall;
              if (exists) expect(times.startLocal).toBe(wall);
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  });
});
