import { DateTime } from 'luxon';
import { resolveEventTimes, zoneAbbreviation, zoneName } from '../../src/events/event-times';
import { errorOf } from './helpers/error-of';

/** zoneAbbreviation of a DateTime's instant and zone. */
const abbreviation = (at: DateTime, name: string) =>
  zoneAbbreviation(at.toSeconds(), at.zone, name);

const at = (iso: string, zone: string) => DateTime.fromISO(iso, { zone });

describe('event times', () => {
  describe('zoneAbbreviation', () => {
    it.each([
      ['2025-01-15T12:00', 'Europe/Amsterdam', 'CET'],
      ['2025-07-15T12:00', 'Europe/Amsterdam', 'CEST'],
      ['2025-01-15T12:00', 'America/New_York', 'EST'],
      ['2025-07-15T12:00', 'America/New_York', 'EDT'],
      ['2025-01-15T12:00', 'Europe/London', 'GMT'],
      ['2025-07-15T12:00', 'Europe/London', 'BST'],
      ['2025-07-15T12:00', 'Australia/Sydney', 'AEST'],
      ['2025-07-15T12:00', 'Asia/Kolkata', 'IST'],
      ['2025-07-15T12:00', 'Europe/Istanbul', '+03'],
      ['2025-07-15T12:00', 'America/Sao_Paulo', '-03'],
      ['2025-07-15T12:00', 'Asia/Kathmandu', '+0545'],
    ])('%s in %s → %s', (iso, zone, expected) => {
      expect(abbreviation(at(iso, zone), zone)).toBe(expected);
    });

    it('switches with the date (the start date decides)', () => {
      expect(abbreviation(at('2025-03-30T01:59', 'Europe/Amsterdam'), 'Europe/Amsterdam')).toBe(
        'CET',
      );
      expect(abbreviation(at('2025-03-30T03:00', 'Europe/Amsterdam'), 'Europe/Amsterdam')).toBe(
        'CEST',
      );
    });

    it('shows a fixed zone as named', () => {
      expect(abbreviation(at('2025-07-15T12:00', 'UTC+2'), 'UTC+2')).toBe('UTC+2');
      expect(abbreviation(at('2025-07-15T12:00', 'UTC-3:30'), 'UTC-03:30')).toBe('UTC-03:30');
      expect(abbreviation(at('2025-07-15T12:00', 'UTC'), 'UTC')).toBe('UTC');
    });
  });

  describe('zoneName', () => {
    it.each([
      ['Europe/Amsterdam', 'Europe/Amsterdam'],
      ['europe/amsterdam', 'Europe/Amsterdam'],
      ['Asia/Kolkata', 'Asia/Kolkata'],
      ['utc+2', 'UTC+2'],
      ['UTC-03:30', 'UTC-03:30'],
      ['utc', 'UTC'],
    ])('%s → %s', (input, stored) => {
      expect(zoneName(input)).toBe(stored);
    });
  });

  describe('resolveEventTimes', () => {
    it('reads wall-clock times in the event zone', () => {
      expect(
        resolveEventTimes(
          {
            timezone: 'America/New_York',
            start_date: '2025-07-04 19:00:00',
            end_date: '2025-07-04 22:30',
          },
          undefined,
          'UTC',
        ),
      ).toEqual({
        timezone: 'America/New_York',
        allDay: false,
        startLocal: '2025-07-04 19:00:00',
        endLocal: '2025-07-04 22:30:00',
        startAt: Date.UTC(2025, 6, 4, 23) / 1000,
        endAt: Date.UTC(2025, 6, 5, 2, 30) / 1000,
      });
    });

    it('defaults to the site zone and converts instants with an offset to it', () => {
      const times = resolveEventTimes(
        { start_date: '2025-01-10T12:00:00Z', end_date: String(Date.UTC(2025, 0, 10, 14) / 1000) },
        undefined,
        'Europe/Amsterdam',
      );
      expect(times).toMatchObject({
        timezone: 'Europe/Amsterdam',
        startLocal: '2025-01-10 13:00:00',
        endLocal: '2025-01-10 15:00:00',
      });
    });

    it('re-interprets the stored wall-clock times when only the zone changes', () => {
      const stored = {
        timezone: 'Europe/Amsterdam',
        startLocal: '2025-07-01 20:00:00',
        endLocal: '2025-07-01 22:00:00',
        allDay: false,
      };
      expect(resolveEventTimes({ timezone: 'America/New_York' }, stored, 'UTC')).toEqual({
        ...stored,
        timezone: 'America/New_York',
        startAt: Date.UTC(2025, 6, 2, 0) / 1000,
        endAt: Date.UTC(2025, 6, 2, 2) / 1000,
      });
    });

    it('stretches all-day events over whole days', () => {
      expect(
        resolveEventTimes(
          { all_day: true, start_date: '2025-05-01 14:00', end_date: '2025-05-03 09:00' },
          undefined,
          'UTC',
        ),
      ).toMatchObject({
        allDay: true,
        startLocal: '2025-05-01 00:00:00',
        endLocal: '2025-05-03 23:59:59',
      });
    });

    it('rejects an end before the start, naming end_date', () => {
      const error = errorOf(() =>
        resolveEventTimes(
          { start_date: '2025-05-02', end_date: '2025-05-01 23:00' },
          undefined,
          'UTC',
        ),
      );
      expect(error.details.invalid).toEqual({
        end_date: { reason: 'endBeforeStart', args: { name: 'end_date' } },
      });
    });

    it('checks a new start against the stored end', () => {
      const stored = {
        timezone: 'UTC',
        startLocal: '2025-05-01 10:00:00',
        endLocal: '2025-05-01 12:00:00',
        allDay: false,
      };
      expect(
        errorOf(() => resolveEventTimes({ start_date: '2025-05-01 13:00' }, stored, 'UTC')).key,
      ).toBe('rest_invalid_param');
    });
  });
});
