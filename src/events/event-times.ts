import { DateTime, FixedOffsetZone, type Zone } from 'luxon';
import { ApiError } from '../common/errors/api-error';
import { parseDateInput, parseZone, toWire, zoneOffset } from '../common/time/dates';

/*
 * An event's times (docs/api.md §6): wall-clock start and end in the event's
 * `timezone`, from which the absolute instants are derived.
 */

/** What a write may send about the times. */
export interface EventTimesInput {
  timezone?: string;
  start_date?: string | number;
  end_date?: string | number;
  all_day?: boolean;
}

/** What is stored of them (an event's columns). */
export interface StoredTimes {
  timezone: string;
  startLocal: string;
  endLocal: string;
  allDay: boolean;
}

export interface EventTimes extends StoredTimes {
  startAt: number;
  endAt: number;
}

/**
 * The times after a write: dates are read as wall-clock times in the event's
 * zone (the one sent, else the stored one, else `siteZone`), so a new zone
 * alone re-interprets the stored wall-clock times. `all_day` stretches them
 * to 00:00:00 of the start day and 23:59:59 of the end day. An end before
 * the start is 400 `end_date`.
 */
export function resolveEventTimes(
  input: EventTimesInput,
  current: StoredTimes | undefined,
  siteZone: string,
): EventTimes {
  const timezone =
    input.timezone !== undefined ? zoneName(input.timezone) : (current?.timezone ?? siteZone);
  const zone = parseZone(timezone) ?? FixedOffsetZone.utcInstance;
  const read = (value: string | number | undefined, name: 'start_date' | 'end_date') => {
    const parsed = value === undefined ? undefined : parseDateInput(value, zone);
    if (!parsed)
      throw value === undefined ? ApiError.missing(name) : ApiError.invalid(name, 'isDateInput');
    return parsed;
  };
  let start = read(input.start_date ?? current?.startLocal, 'start_date');
  let end = read(input.end_date ?? current?.endLocal, 'end_date');
  const allDay = input.all_day ?? current?.allDay ?? false;
  if (allDay) {
    start = start.startOf('day');
    end = end.endOf('day').startOf('second');
  }
  if (end < start) throw ApiError.invalid('end_date', 'endBeforeStart');
  return {
    timezone,
    allDay,
    startLocal: toWire(start),
    endLocal: toWire(end),
    startAt: Math.floor(start.toSeconds()),
    endAt: Math.floor(end.toSeconds()),
  };
}

/**
 * The name to store for a valid `timezone`: an IANA name in its canonical
 * spelling when only the case differs (`europe/amsterdam`), else as sent
 * (ICU would turn Asia/Kolkata into Asia/Calcutta); `UTC±H[:MM]` as sent.
 */
export function zoneName(input: string): string {
  if (/^utc/i.test(input)) return `UTC${input.slice(3)}`;
  // An Intl formatter per call cost ~0.5 ms of a create (profiled): one per spelling sent.
  let name = zoneNames.get(input);
  if (name === undefined) {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: input }).resolvedOptions()
      .timeZone;
    name = canonical.toLowerCase() === input.toLowerCase() ? canonical : input;
    // Zones are few; the bound only keeps odd spellings from growing it without end.
    if (zoneNames.size >= MAX_ZONE_NAMES) zoneNames.clear();
    zoneNames.set(input, name);
  }
  return name;
}

const MAX_ZONE_NAMES = 1000;
const zoneNames = new Map<string, string>();

/** English locales whose zone names cover the usual abbreviations (EST, CET, BST, AEST, IST, …). */
const ABBREVIATION_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-NZ', 'en-IN'];

/**
 * `timezone_abbr`: the zone's usual abbreviation at `seconds` (CET or CEST by the
 * date), else the numeric offset as `+03` or `+0530`; a `UTC±H[:MM]` zone
 * is shown as named.
 */
export function zoneAbbreviation(seconds: number, zone: Zone, name: string): string {
  if (zone.type === 'fixed') return name;
  // offsetNameShort builds an Intl formatter per call: one lookup per zone, (365.2425-day) year and offset.
  const offset = zoneOffset(zone, seconds);
  const key = `${name}|${Math.floor(seconds / 31_556_952)}|${offset}`;
  let abbreviation = abbreviations.get(key);
  if (abbreviation === undefined) {
    abbreviation = lookUpAbbreviation(DateTime.fromSeconds(seconds, { zone }));
    if (abbreviations.size >= MAX_CACHED_ABBREVIATIONS) abbreviations.clear();
    abbreviations.set(key, abbreviation);
  }
  return abbreviation;
}

const abbreviations = new Map<string, string>();
const MAX_CACHED_ABBREVIATIONS = 10_000;

function lookUpAbbreviation(at: DateTime): string {
  for (const locale of ABBREVIATION_LOCALES) {
    const short = at.setLocale(locale).offsetNameShort;
    // Locales without a name for the zone answer "GMT+1".
    if (short && !/^(GMT|UTC)[+\-−]/.test(short)) return short;
  }
  return numericOffset(at.offset);
}

function numericOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  const rest = Math.abs(minutes) % 60;
  return `${sign}${hours}${rest ? String(rest).padStart(2, '0') : ''}`;
}
