import { DateTime, IANAZone } from 'luxon';

/*
 * Wall-clock time ↔ instant in an IANA zone for the import parser, with the
 * zone's UTC offsets asked of Intl once per zone and UTC day. luxon asks Intl
 * (one `formatToParts`, tens of microseconds) for every offset it needs, two
 * to four per conversion, which made it most of a feed's parse time
 * (docs/performance.md "Imports"). The arithmetic is luxon's (offsets in
 * minutes, as luxon's IANAZone.offset gives them); what is not plain (an
 * offset of odd seconds, a time outside the years 1000–9999, a date that
 * does not exist) is left to luxon.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const HALF_DAY_MS = DAY_MS / 2;
/** Days remembered over all zones; past it the memory starts again (a 20,000-VEVENT feed spans fewer). */
const MAX_DAYS = 100_000;

/** Per zone: UTC day number → the offset (minutes) all day, or null when it changes that day. */
const dayOffsets = new Map<string, Map<number, number | null>>();
let daysKept = 0;
/** Zone names luxon knows as IANA zones, and those it does not. */
const ianaZones = new Map<string, IANAZone | null>();

function ianaZone(name: string): IANAZone | null {
  let zone = ianaZones.get(name);
  if (zone === undefined) {
    const created = IANAZone.create(name);
    zone = created.isValid && name !== 'UTC' ? created : null;
    if (ianaZones.size < 1000) ianaZones.set(name, zone);
  }
  return zone;
}

/**
 * The offset (minutes) of `zone` at `ms`, as luxon's IANAZone.offset gives it.
 * A day whose offset is the same at its start, middle and last second keeps
 * it all day (zones change their offset weeks apart, never twice in half a day).
 */
function offsetAt(zone: IANAZone, ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  let days = dayOffsets.get(zone.name);
  if (!days) {
    days = new Map();
    dayOffsets.set(zone.name, days);
  }
  let offset = days.get(day);
  if (offset === undefined) {
    const start = day * DAY_MS;
    const first = zone.offset(start);
    const constant =
      first === zone.offset(start + HALF_DAY_MS) && first === zone.offset(start + DAY_MS - 1000);
    offset = constant ? first : null;
    if (daysKept >= MAX_DAYS) {
      dayOffsets.clear();
      daysKept = 0;
      days = new Map();
      dayOffsets.set(zone.name, days);
    }
    days.set(day, offset);
    daysKept += 1;
  }
  return offset ?? zone.offset(ms);
}

/** Milliseconds of a plain `YYYY-MM-DD HH:MM:SS` (years 1000–9999, a date that exists) read as UTC, else NaN. */
function wallMs(wall: string): number {
  if (wall.length !== 19 || wall[4] !== '-' || wall[7] !== '-' || wall[10] !== ' ') return NaN;
  if (wall[13] !== ':' || wall[16] !== ':') return NaN;
  const year = digits(wall, 0, 4);
  const month = digits(wall, 5, 2);
  const day = digits(wall, 8, 2);
  const hour = digits(wall, 11, 2);
  const minute = digits(wall, 14, 2);
  const second = digits(wall, 17, 2);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour > 23) return NaN;
  if (minute > 59 || second > 59) return NaN;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // 31 April and 29 February of a common year roll over: not plain.
  return new Date(ms).getUTCDate() === day ? ms : NaN;
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

/**
 * Unix seconds of a wall-clock time in a zone: the first of a repeated hour,
 * a time in a skipped hour moved forward by the gap (RFC 5545 §3.3.5).
 */
export function instantOf(wall: string, zoneName: string): number {
  const local = wallMs(wall);
  if (zoneName === 'UTC' && !Number.isNaN(local)) return local / 1000;
  const zone = ianaZone(zoneName);
  if (zone && !Number.isNaN(local)) {
    // The offsets on either side of the one change (if any) that can touch this wall time.
    const before = offsetAt(zone, local - DAY_MS);
    const after = offsetAt(zone, local + DAY_MS);
    if (Number.isInteger(before) && Number.isInteger(after)) {
      // The larger offset first: the earlier of two instants that show this wall time.
      for (const offset of before >= after ? [before, after] : [after, before]) {
        const ms = local - offset * MINUTE_MS;
        if (offsetAt(zone, ms) === offset) return ms / 1000;
      }
      // A skipped hour: read with the offset before it (as luxon does).
      if (before < after) return (local - before * MINUTE_MS) / 1000;
    }
  }
  return DateTime.fromSQL(wall, { zone: zoneName }).toSeconds();
}

/** The wall-clock time (`YYYY-MM-DD HH:MM:SS`) in a zone of Unix seconds. */
export function wallAt(seconds: number, zoneName: string): string {
  const ms = seconds * 1000;
  if (Number.isInteger(seconds)) {
    const zone = zoneName === 'UTC' ? null : ianaZone(zoneName);
    const offset = zone ? offsetAt(zone, ms) : zoneName === 'UTC' ? 0 : NaN;
    if (Number.isInteger(offset)) {
      const wall = utcWall(ms + offset * MINUTE_MS);
      if (wall !== undefined) return wall;
    }
  }
  return DateTime.fromSeconds(seconds, { zone: zoneName }).toFormat('yyyy-MM-dd HH:mm:ss');
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** `YYYY-MM-DD HH:MM:SS` of UTC milliseconds in the years 1000–9999, else undefined. */
function utcWall(ms: number): string | undefined {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return undefined;
  return (
    `${year}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ` +
    `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`
  );
}
