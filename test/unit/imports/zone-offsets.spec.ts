import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';
import { instantOf, wallAt } from '../../../src/imports/zone-offsets';
import { luxonInstantOf, luxonWallAt } from './luxon-zones';

/*
 * The import's conversions with offsets asked once per zone and day give
 * luxon's answers: every zone, times from the years 1000 to 9999 (mostly
 * around now, where the daylight-saving changes are), the changes themselves,
 * and whatever is not plain (no such date, offsets of odd seconds) left to luxon.
 */

const DAY_MS = 86_400_000;
const ALL_ZONES = Intl.supportedValuesOf('timeZone').filter((zone) => IANAZone.isValidZone(zone));
/** Zones with odd changes: half-hour DST, +12:45, a skipped day, a two-hour DST, Ramadan breaks. */
const ODD_ZONES = [
  'Europe/Amsterdam',
  'America/New_York',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Apia',
  'Pacific/Kiritimati',
  'Antarctica/Troll',
  'Africa/Casablanca',
  'America/St_Johns',
  'Asia/Tehran',
  'Europe/Dublin',
  'America/Sao_Paulo',
];
const zone = fc.oneof(fc.constantFrom(...ALL_ZONES), fc.constantFrom(...ODD_ZONES), fc.constant('UTC'));
const year = fc.oneof(
  { arbitrary: fc.integer({ min: 1960, max: 2060 }), weight: 8 },
  { arbitrary: fc.integer({ min: 1000, max: 9999 }), weight: 2 },
);
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const wall = fc
  .tuple(
    year,
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 31 }),
    fc.integer({ min: 0, max: 23 }),
    fc.constantFrom(0, 15, 30, 45, 59),
    fc.constantFrom(0, 30, 59),
  )
  .map(
    ([y, mo, d, h, mi, s]) =>
      `${pad(y, 4)}-${pad(mo)}-${pad(d)} ${pad(h)}:${pad(mi)}:${pad(s)}`,
  );

describe('import zone offsets', () => {
  it("reads a wall-clock time as luxon does, the first of a repeated hour", () => {
    fc.assert(
      fc.property(wall, zone, (time, name) => {
        expect(instantOf(time, name)).toBe(luxonInstantOf(time, name));
      }),
      { numRuns: 5000, seed: 20261128 },
    );
  });

  it('writes an instant as luxon does', () => {
    const seconds = fc.oneof(
      fc.integer({ min: -300_000_000, max: 3_000_000_000 }),
      fc.integer({ min: -30_610_224_000, max: 253_402_300_799 }),
    );
    fc.assert(
      fc.property(seconds, zone, (at, name) => {
        expect(wallAt(at, name)).toBe(luxonWallAt(at, name));
      }),
      { numRuns: 5000, seed: 20261128 },
    );
  });

  it("reads the times around the odd zones' changes of 2020 to 2030 as luxon does", () => {
    for (const name of ODD_ZONES) {
      const zoneInfo = IANAZone.create(name);
      for (let day = Date.UTC(2020, 0, 1); day < Date.UTC(2030, 0, 1); day += DAY_MS) {
        const offset = zoneInfo.offset(day);
        if (zoneInfo.offset(day + DAY_MS) === offset) continue;
        // The change's minute, halved down from the day.
        let [from, to] = [day, day + DAY_MS];
        while (to - from > 60_000) {
          const middle = from + Math.floor((to - from) / 120_000) * 60_000;
          if (zoneInfo.offset(middle) === offset) from = middle;
          else to = middle;
        }
        // The wall times on both sides of the change, every quarter hour.
        const around = DateTime.fromMillis(to, { zone: 'UTC' }).plus({ minutes: offset });
        for (let quarter = -12; quarter <= 12; quarter += 1) {
          const time = around.plus({ minutes: 15 * quarter }).toFormat('yyyy-MM-dd HH:mm:ss');
          expect([name, time, instantOf(time, name)]).toEqual([
            name,
            time,
            luxonInstantOf(time, name),
          ]);
          const instant = to / 1000 + 900 * quarter;
          expect([name, instant, wallAt(instant, name)]).toEqual([
            name,
            instant,
            luxonWallAt(instant, name),
          ]);
        }
      }
    }
  });

  it('leaves what is not plain to luxon: no such date, hour 24, odd texts, fractions', () => {
    for (const time of [
      '2027-02-29 10:00:00',
      '2027-04-31 10:00:00',
      '2027-03-01 24:00:00',
      '2027-03-01 10:60:00',
      '2027-3-01 10:00:00',
      '0999-12-31 23:00:00',
      'not a time',
    ]) {
      for (const name of ['Europe/Amsterdam', 'UTC', 'Nowhere/Atlantis']) {
        expect([time, name, instantOf(time, name)]).toEqual([
          time,
          name,
          DateTime.fromSQL(time, { zone: name }).toSeconds(),
        ]);
      }
    }
    for (const at of [1.5, NaN, 253_402_300_800, -30_610_224_001]) {
      expect(wallAt(at, 'Europe/Amsterdam')).toBe(luxonWallAt(at, 'Europe/Amsterdam'));
    }
  });
});
