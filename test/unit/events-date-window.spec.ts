import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';
import { eventWindow, windowOf } from '../../src/events/date-window';

const UTC = IANAZone.create('UTC');
const AMSTERDAM = IANAZone.create('Europe/Amsterdam');
const NOW = DateTime.fromISO('2025-06-15T10:30:00Z');
const s = (iso: string) => DateTime.fromISO(iso, { setZone: true }).toSeconds();

describe('event list date window', () => {
  it('defaults to yesterday 00:00:00 up to the end of the day 24 months from now', () => {
    expect(eventWindow({}, UTC, NOW)).toEqual({
      startMin: s('2025-06-14T00:00:00Z'),
      startMax: s('2027-06-15T23:59:59Z'),
      endMin: undefined,
      endMax: s('2027-06-15T23:59:59Z'),
    });
  });

  it('computes the defaults in the site zone', () => {
    expect(eventWindow({}, AMSTERDAM, NOW).startMin).toBe(s('2025-06-14T00:00:00+02:00'));
  });

  it('widens the given dates to whole days unless strict_dates', () => {
    const filters = { start_date: '2025-07-01 15:00', end_date: '2025-07-01 18:00' };
    expect(eventWindow(filters, UTC, NOW)).toEqual({
      startMin: s('2025-07-01T00:00:00Z'),
      startMax: s('2025-07-01T23:59:59Z'),
      endMin: undefined,
      endMax: s('2025-07-01T23:59:59Z'),
    });
    expect(eventWindow({ ...filters, strict_dates: true }, UTC, NOW)).toEqual({
      startMin: s('2025-07-01T15:00:00Z'),
      startMax: s('2025-07-01T18:00:00Z'),
      endMin: undefined,
      endMax: s('2025-07-01T18:00:00Z'),
    });
  });

  it('keeps the other default when only one of start_date and end_date is given', () => {
    expect(eventWindow({ start_date: '2025-01-01' }, UTC, NOW)).toMatchObject({
      startMin: s('2025-01-01T00:00:00Z'),
      endMax: s('2027-06-15T23:59:59Z'),
    });
  });

  it('drops the default window for starts_*/ends_* and widens lower bounds down, upper bounds up', () => {
    expect(
      eventWindow(
        {
          starts_after: '2025-08-01 12:00',
          starts_before: '2025-08-10 12:00',
          ends_after: '2025-08-02 12:00',
          ends_before: '2025-08-20 12:00',
        },
        UTC,
        NOW,
      ),
    ).toEqual({
      startMin: s('2025-08-01T00:00:00Z'),
      startMax: s('2025-08-10T23:59:59Z'),
      endMin: s('2025-08-02T00:00:00Z'),
      endMax: s('2025-08-20T23:59:59Z'),
    });
    expect(eventWindow({ ends_after: '2025-08-02' }, UTC, NOW)).toEqual({
      startMin: undefined,
      startMax: undefined,
      endMin: s('2025-08-02T00:00:00Z'),
      endMax: undefined,
    });
  });

  it('combines start_date with starts_after (the later wins) and bounds the start by the end', () => {
    expect(
      eventWindow(
        {
          start_date: '2025-08-01',
          starts_after: '2025-08-05',
          ends_before: '2025-08-03',
          strict_dates: true,
        },
        UTC,
        NOW,
      ),
    ).toEqual({
      startMin: s('2025-08-05T00:00:00Z'),
      startMax: s('2025-08-03T00:00:00Z'),
      endMin: undefined,
      endMax: s('2025-08-03T00:00:00Z'),
    });
  });

  it('reads unix timestamps and offsets as instants, their day in the site zone', () => {
    // 23:30 UTC is already the next day in Amsterdam.
    const lateUtc = String(s('2025-07-01T23:30:00Z'));
    expect(
      eventWindow({ start_date: lateUtc, end_date: '2025-07-02T23:30:00Z' }, AMSTERDAM, NOW),
    ).toMatchObject({
      startMin: s('2025-07-02T00:00:00+02:00'),
      endMax: s('2025-07-03T23:59:59+02:00'),
    });
  });

  it('answers the default window kept for the day as computed, whatever instants come in whatever order', () => {
    const zones = [
      'UTC',
      'Europe/Amsterdam',
      'America/St_Johns',
      'Pacific/Chatham',
      'Asia/Kolkata',
    ].map((name) => IANAZone.create(name));
    // Around DST changes and midnights of 2025 and 2026, minutes apart and days apart.
    const instant = fc.oneof(
      fc.integer({ min: Date.UTC(2025, 2, 29), max: Date.UTC(2025, 2, 31) }),
      fc.integer({ min: Date.UTC(2025, 9, 25), max: Date.UTC(2025, 9, 27) }),
      fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2026, 11, 31) }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...zones), instant), { minLength: 1, maxLength: 40 }),
        (calls) => {
          for (const [zone, millis] of calls) {
            const now = DateTime.fromMillis(millis);
            expect(eventWindow({}, zone, now)).toEqual(windowOf({}, zone, now));
            // Date filters and strict_dates are computed, never taken from the kept day.
            expect(eventWindow({ strict_dates: true }, zone, now)).toEqual(
              windowOf({ strict_dates: true }, zone, now),
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('hands out a copy: a caller changing its window changes no later answer', () => {
    const first = eventWindow({}, UTC, NOW);
    first.startMin = 0;
    expect(eventWindow({}, UTC, NOW).startMin).toBe(s('2025-06-14T00:00:00Z'));
  });
});
