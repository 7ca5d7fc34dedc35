import { DateTime } from 'luxon';
import { parseZone, wallClockInstant, zoneWire } from '../common/time/dates';

/*
 * Wall-clock time ↔ instant in a zone for the import parser, through the
 * service's own offset arithmetic (`common/time/dates.ts`: offsets asked of
 * Intl once per zone and day, the first of a repeated hour, a skipped hour
 * moved forward by the gap). luxon asks Intl for every offset it needs, two to
 * four per conversion, which made it most of a feed's parse time
 * (docs/performance.md "Imports"). What is not plain (a date that does not
 * exist, a time outside the years 1000–9999, an offset of odd seconds, an
 * unknown zone) is left to luxon.
 */

/**
 * Unix seconds of a wall-clock time in a zone: the first of a repeated hour,
 * a time in a skipped hour moved forward by the gap (RFC 5545 §3.3.5).
 */
export function instantOf(wall: string, zoneName: string): number {
  const zone = parseZone(zoneName);
  if (zone && isPlainWall(wall)) {
    const seconds = wallClockInstant(wall, zone);
    if (Number.isInteger(seconds)) return seconds;
  }
  return DateTime.fromSQL(wall, { zone: zoneName }).toSeconds();
}

/** The wall-clock time (`YYYY-MM-DD HH:MM:SS`) in a zone of Unix seconds. */
export function wallAt(seconds: number, zoneName: string): string {
  const zone = parseZone(zoneName);
  if (zone && Number.isInteger(seconds)) {
    const wall = zoneWire(seconds, zone);
    if (isPlainWall(wall)) return wall;
  }
  return DateTime.fromSeconds(seconds, { zone: zoneName }).toFormat('yyyy-MM-dd HH:mm:ss');
}

/** A `YYYY-MM-DD HH:MM:SS` in the years 1000–9999 of a date that exists. */
function isPlainWall(wall: string): boolean {
  if (wall.length !== 19 || wall[4] !== '-' || wall[7] !== '-' || wall[10] !== ' ') return false;
  if (wall[13] !== ':' || wall[16] !== ':') return false;
  const year = digits(wall, 0, 4);
  const month = digits(wall, 5, 2);
  const day = digits(wall, 8, 2);
  const [hour, minute, second] = [digits(wall, 11, 2), digits(wall, 14, 2), digits(wall, 17, 2)];
  if (!(year >= 1000) || !(month >= 1 && month <= 12) || !(day >= 1)) return false;
  if (!(hour <= 23 && minute <= 59 && second <= 59)) return false;
  // 31 April and 29 February of a common year roll over: not plain.
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
}

/** The number `length` decimal digits at `from` write, or NaN. */
function digits(text: string, from: number, length: number): number {
  let value = 0;
  for (let i = from; i < from + length; i++) {
    const code = text.charCodeAt(i) - 48;
    if (code < 0 || code > 9) return NaN;
    value = value * 10 + code;
  }
  return value;
}
