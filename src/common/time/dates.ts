import { DateDetailsDto } from '../dto/date-details.dto';
import { DateTime, FixedOffsetZone, IANAZone, Settings, Zone } from 'luxon';

export const WIRE_FORMAT = 'yyyy-MM-dd HH:mm:ss';

/*
 * luxon's locale for every DateTime and Duration the service makes. Without
 * one, luxon asks an `Intl.DateTimeFormat` for the host's default locale,
 * and building it reads about 8 MB of ICU data, which the idle service's jobs
 * had no other need of (docs/performance.md, Memory). What the service
 * writes are ISO and numeric formats: fixed, they no longer follow the host
 * (a host locale with other digits would have changed them).
 */
Settings.defaultLocale = 'en-US';

/** Zones by name: validating an IANA name builds an Intl formatter, too slow for every record read. */
const zones = new Map<string, Zone>();
const MAX_CACHED_ZONES = 1000;

/**
 * An IANA zone name or `UTC±H[:MM]` (docs/api.md §6); undefined when neither.
 * "UTC" itself is accepted as the fixed zero offset.
 */
export function parseZone(name: unknown): Zone | undefined {
  if (typeof name !== 'string' || name.length === 0 || name.length > 64) return undefined;
  const cached = zones.get(name);
  if (cached) return cached;
  const zone = resolveZone(name);
  // Only valid names are kept, so hostile input cannot grow the cache past the real zones.
  if (zone && zones.size < MAX_CACHED_ZONES) zones.set(name, zone);
  return zone;
}

function resolveZone(name: string): Zone | undefined {
  const fixed = /^UTC(?:([+-])(\d{1,2})(?::([0-5]\d))?)?$/i.exec(name);
  if (fixed) {
    const [, sign, hours = '0', minutes = '0'] = fixed;
    const offset = (Number(hours) * 60 + Number(minutes)) * (sign === '-' ? -1 : 1);
    return Math.abs(offset) <= 14 * 60 ? FixedOffsetZone.instance(offset) : undefined;
  }
  return IANAZone.isValidZone(name) ? IANAZone.create(name) : undefined;
}

const WIRE_RE = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * Reads a date in one of input forms (docs/api.md §1): `YYYY-MM-DD HH:MM:SS`,
 * `YYYY-MM-DD`, ISO 8601 with or without offset, or unix seconds (digits only).
 * Forms without an offset are wall-clock times in `zone`. The result is in `zone`.
 */
export function parseDateInput(value: unknown, zone: Zone): DateTime | undefined {
  if (typeof value === 'number') return fromUnix(value, zone);
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text.length === 0 || text.length > 40) return undefined;
  if (/^\d+$/.test(text)) return fromUnix(Number(text), zone);
  const wire = WIRE_RE.exec(text);
  let parsed: DateTime = wire
    ? DateTime.fromObject(
        {
          year: Number(wire[1]),
          month: Number(wire[2]),
          day: Number(wire[3]),
          hour: Number(wire[4] ?? 0),
          minute: Number(wire[5] ?? 0),
          second: Number(wire[6] ?? 0),
        },
        { zone },
      )
    : DateTime.fromISO(text, { zone, setZone: true });
  if (!parsed.isValid || parsed.year < 1000 || parsed.year > 9999) return undefined;
  // No offset in the text (the result is in `zone` itself): a wall-clock time.
  if (!zone.isUniversal && parsed.zone === zone) parsed = firstOfRepeated(parsed, zone);
  return parsed.setZone(zone);
}

/**
 * A wall-clock time the zone shows twice (the hour the clocks go back) is the
 * first of the two, as series and imports read it (RFC 5545 §3.3.5). luxon
 * picks by the offset the zone has now, so the same input gave another
 * instant in summer than in winter.
 */
function firstOfRepeated(parsed: DateTime, zone: Zone): DateTime {
  const first = wallClockInstant(toWire(parsed), zone) * 1000 + parsed.millisecond;
  return first < parsed.toMillis() ? DateTime.fromMillis(first, { zone }) : parsed;
}

/**
 * The instant (unix seconds) of a wall-clock time in `zone`, decided as
 * RFC 5545 §3.3.5 does: a time that occurs twice (the October change) is
 * the first of the two; a time that does not exist (the March gap) is read
 * with the offset before the gap, i.e. moved forward by the gap's length
 * (02:30 → 03:30). Plain arithmetic on offsets: a series computes hundreds.
 */
export function wallClockInstant(local: string, zone: Zone): number {
  const naive = Date.parse(`${local.replace(' ', 'T')}Z`) / 1000;
  const day = 86_400;
  const before = zoneOffset(zone, naive - day);
  const candidates = [before, zoneOffset(zone, naive), zoneOffset(zone, naive + day)]
    .map((offset) => naive - offset * 60)
    .filter((instant) => instant + zoneOffset(zone, instant) * 60 === naive);
  return candidates.length > 0 ? Math.min(...candidates) : naive - before * 60;
}

function fromUnix(seconds: number, zone: Zone): DateTime | undefined {
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > 253402300799) return undefined;
  return DateTime.fromSeconds(seconds, { zone });
}

/**
 * True when `value` is in one of the accepted date forms (zone does not matter
 * for that). The wire form with an hour up to 23 is checked by its parts, what
 * parseDateInput's luxon answers for it (a write's service parses its dates
 * again in their zone: that parse was the validation's second); the rest goes
 * through parseDateInput.
 */
export function isDateInput(value: unknown): boolean {
  if (typeof value === 'string' && value.length <= 40) {
    const wire = WIRE_RE.exec(value.trim());
    const hour = wire ? Number(wire[4] ?? 0) : 24;
    if (wire && hour <= 23) {
      const [year, month, day] = [Number(wire[1]), Number(wire[2]), Number(wire[3])];
      return (
        year >= 1000 &&
        month >= 1 &&
        month <= 12 &&
        day >= 1 &&
        day <= daysInMonth(year, month) &&
        Number(wire[5] ?? 0) <= 59 &&
        Number(wire[6] ?? 0) <= 59
      );
    }
  }
  return parseDateInput(value, FixedOffsetZone.utcInstance) !== undefined;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * `YYYY-MM-DD HH:MM:SS` of `dt` (the same text as `dt.toFormat(WIRE_FORMAT)`
 * for years 0–9999, without luxon's format parser:
 * records carry up to six of these each).
 */
export function toWire(dt: DateTime): string {
  return (
    `${String(dt.year).padStart(4, '0')}-${pad2(dt.month)}-${pad2(dt.day)} ` +
    `${pad2(dt.hour)}:${pad2(dt.minute)}:${pad2(dt.second)}`
  );
}

/**
 * Unix seconds as a UTC wire date, without luxon: the day's `YYYY-MM-DD `
 * from a cache (records carry up to eight of these each, and a page's dates
 * share few days), the time of day by arithmetic.
 */
export function utcWire(seconds: number): string {
  if (!Number.isInteger(seconds) || seconds < MIN_WIRE_SECONDS || seconds > MAX_WIRE_SECONDS) {
    return isoWire(seconds);
  }
  const day = Math.floor(seconds / 86_400);
  let date = utcDays.get(day);
  if (date === undefined) {
    date = isoWire(day * 86_400).slice(0, 11);
    if (utcDays.size >= MAX_CACHED_DAYS) utcDays.clear();
    utcDays.set(day, date);
  }
  const time = seconds - day * 86_400;
  const hours = Math.floor(time / 3_600);
  const minutes = Math.floor((time - hours * 3_600) / 60);
  return `${date}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[time % 60]}`;
}

function isoWire(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

const utcDays = new Map<number, string>();
const MAX_CACHED_DAYS = 100_000;
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));

/** Unix seconds as a wire date in `zone` (an IANA name or `UTC±H[:MM]`; UTC when neither). */
export function epochToWire(seconds: number, zone: string): string {
  return zoneWire(seconds, parseZone(zone) ?? FixedOffsetZone.utcInstance);
}

/**
 * Unix seconds as a wire date in `zone`: what toWire(fromEpoch(seconds, zone))
 * gives, without building a DateTime (luxon asks Intl for the offset of every
 * instant; here it is asked once per zone and hour).
 */
export function zoneWire(seconds: number, zone: Zone): string {
  const local = seconds + Math.round(zoneOffset(zone, seconds) * 60);
  // Outside four-digit years Date would write ±YYYYYY; luxon's own path handles those.
  if (local < MIN_WIRE_SECONDS || local > MAX_WIRE_SECONDS) {
    return toWire(DateTime.fromSeconds(seconds, { zone }));
  }
  return utcWire(local);
}

/**
 * Unix seconds as ISO 8601 in `zone` with its offset (`Z` for a fixed zero
 * offset): what fromEpoch(seconds, zone).toISO({ suppressMilliseconds: true })
 * gives, without building a DateTime (every write's JSON-LD carries two).
 * Offsets of a fraction of a minute (local mean time before the zones) and
 * years outside 0001–9999 take luxon's own path.
 */
export function zoneIso(seconds: number, zone: Zone): string {
  const offset = zoneOffset(zone, seconds);
  const local = seconds + offset * 60;
  if (
    !Number.isInteger(seconds) ||
    !Number.isInteger(offset) ||
    local < MIN_WIRE_SECONDS ||
    local > MAX_WIRE_SECONDS
  ) {
    return fromEpoch(seconds, zone).toISO({ suppressMilliseconds: true }) ?? '';
  }
  const wire = utcWire(local);
  if (zone.isUniversal && offset === 0) return `${wire.slice(0, 10)}T${wire.slice(11)}Z`;
  const minutes = Math.abs(offset);
  const sign = offset < 0 ? '-' : '+';
  return `${wire.slice(0, 10)}T${wire.slice(11)}${sign}${pad2(Math.trunc(minutes / 60))}:${pad2(minutes % 60)}`;
}

const MIN_WIRE_SECONDS = -62135596800; // 0001-01-01 00:00:00
const MAX_WIRE_SECONDS = 253402300799; // 9999-12-31 23:59:59

/** Per zone name: offsets by UTC day number, and by hour number on days with a change. */
const offsets = new Map<string, { days: Map<number, number>; hours: Map<number, number> }>();
const MAX_CACHED_OFFSETS = 100_000;
let cachedOffsets = 0;

/**
 * Minutes east of UTC of `zone` at `seconds`. Cached per zone and UTC day
 * when the offset is the same at both ends of the day (luxon asks Intl for
 * every offset, and a feed spans thousands of days); a day with a change is
 * cached per hour the same way, and the hour with the change is computed.
 * Keyed by numbers under the zone (a feed asks twice per event: no key string per call).
 */
export function zoneOffset(zone: Zone, seconds: number): number {
  if (zone.isUniversal) return zone.offset(0);
  const cache = offsetsOf(zone.name);
  const day = Math.floor(seconds / 86_400);
  let offset = cache.days.get(day);
  if (offset !== undefined) return offset;
  const dayStart = zone.offset(day * 86_400_000);
  if (zone.offset(day * 86_400_000 + 86_399_999) === dayStart) {
    remember(cache.days, day, dayStart);
    return dayStart;
  }
  const hour = Math.floor(seconds / 3600);
  offset = cache.hours.get(hour);
  if (offset === undefined) {
    offset = zone.offset(hour * 3_600_000);
    if (zone.offset(hour * 3_600_000 + 3_599_999) !== offset) return zone.offset(seconds * 1000);
    remember(cache.hours, hour, offset);
  }
  return offset;
}

function offsetsOf(name: string): { days: Map<number, number>; hours: Map<number, number> } {
  let cache = offsets.get(name);
  if (!cache) {
    cache = { days: new Map(), hours: new Map() };
    offsets.set(name, cache);
  }
  return cache;
}

function remember(map: Map<number, number>, key: number, offset: number): void {
  if (cachedOffsets >= MAX_CACHED_OFFSETS) {
    for (const cache of offsets.values()) {
      cache.days.clear();
      cache.hours.clear();
    }
    cachedOffsets = 0;
  }
  map.set(key, offset);
  cachedOffsets++;
}

export type DateDetails = DateDetailsDto;

/** The parts of a wire date as zero-padded strings. */
export function wireDetails(wire: string): DateDetails {
  return {
    year: wire.slice(0, 4),
    month: wire.slice(5, 7),
    day: wire.slice(8, 10),
    hour: wire.slice(11, 13),
    minutes: wire.slice(14, 16),
    seconds: wire.slice(17, 19),
  };
}

/** Unix seconds (the storage form of every absolute instant) → DateTime in `zone`. */
export function fromEpoch(seconds: number, zone: Zone | string = 'UTC'): DateTime {
  return DateTime.fromSeconds(seconds, {
    zone: typeof zone === 'string' ? (parseZone(zone) ?? zone) : zone,
  });
}

export function nowEpoch(): number {
  return Math.floor(Date.now() / 1000);
}
