import type ICALModule from 'ical.js';
import type { ImportTime } from './import-item';
import { blockInstant, type FeedZones, instantOf, wallAt, wallOf } from './import-zones';

/*
 * The dates of one VEVENT as wall-clock times with their zone: DTSTART's TZID
 * (resolved by FeedZones), `Z` as UTC, floating times in the feed's zone.
 */

/** Why the dates cannot be taken: a SkipReason and the detail. */
export class DateProblem extends Error {
  constructor(
    readonly reason: 'missing_start' | 'bad_dates' | 'unknown_timezone',
    detail: string,
  ) {
    super(detail);
  }
}

export interface ReadTime extends ImportTime {
  /** A DATE value (all-day). */
  isDate: boolean;
  /** Unix seconds of the wall-clock time in its zone (DATE: its midnight). */
  seconds: number;
}

export interface DateContext {
  zones: FeedZones;
  /** IANA zone of floating times and all-day events. */
  floatingZone: string;
}

const MIN_YEAR = 1000;
const MAX_YEAR = 9999;

/** A DATE or DATE-TIME property value, read in the zone its TZID names. */
export function readTime(
  time: ICALModule.Time,
  tzid: string | null,
  context: DateContext,
  what: string,
): ReadTime {
  const read = readTimeIn(time, tzid, context, what);
  if (!Number.isFinite(read.seconds)) throw new DateProblem('bad_dates', `${what} is not a time`);
  return read;
}

function readTimeIn(
  time: ICALModule.Time,
  tzid: string | null,
  context: DateContext,
  what: string,
): ReadTime {
  if (time.year < MIN_YEAR || time.year > MAX_YEAR) {
    throw new DateProblem('bad_dates', `${what} is outside the years 1000-9999`);
  }
  if (time.isDate) {
    const local = `${wallOf(time).slice(0, 10)} 00:00:00`;
    const timezone = context.floatingZone;
    return { local, timezone, isDate: true, seconds: instantOf(local, timezone) };
  }
  const wall = wallOf(time);
  if (time.zone?.tzid === 'UTC') {
    return { local: wall, timezone: 'UTC', isDate: false, seconds: instantOf(wall, 'UTC') };
  }
  if (!tzid) {
    const zone = context.floatingZone;
    return { local: wall, timezone: zone, isDate: false, seconds: instantOf(wall, zone) };
  }
  const resolved = context.zones.resolve(tzid);
  if (!resolved) {
    throw new DateProblem('unknown_timezone', `${what}: unknown TZID "${tzid.slice(0, 64)}"`);
  }
  if ('iana' in resolved) {
    const seconds = instantOf(wall, resolved.iana);
    return { local: wall, timezone: resolved.iana, isDate: false, seconds };
  }
  // A zone known only by its VTIMEZONE: the instant it gives, in UTC.
  const seconds = blockInstant(time, resolved.block);
  return { local: wallAt(seconds, 'UTC'), timezone: 'UTC', isDate: false, seconds };
}

/** The first value of a date property, read; undefined when the property is absent. */
export function readProperty(
  vevent: ICALModule.Component,
  name: string,
  context: DateContext,
): ReadTime | undefined {
  const property = vevent.getFirstProperty(name);
  if (!property) return undefined;
  const value = property.getFirstValue() as unknown;
  if (!isTime(value)) throw new DateProblem('bad_dates', `${name.toUpperCase()} is not a date`);
  return readTime(value, tzidOf(property), context, name.toUpperCase());
}

export function tzidOf(property: ICALModule.Property): string | null {
  const tzid = property.getParameter('tzid');
  return typeof tzid === 'string' && tzid !== '' ? tzid : null;
}

export function isTime(value: unknown): value is ICALModule.Time {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ICALModule.Time).isDate === 'boolean' &&
    typeof (value as ICALModule.Time).year === 'number'
  );
}

/** Start and end as the event stores them (docs/api.md §6). */
export interface EventDates {
  allDay: boolean;
  start: ImportTime;
  end: ImportTime;
}

const DAY = 86_400;
/** An event longer than this is refused as bad dates: no calendar app writes one. */
const MAX_DURATION_SECONDS = 366 * DAY * 10;

/**
 * DTSTART with DTEND, DURATION or neither (RFC 5545 §3.6.1): a timed end in
 * the start's zone; an all-day end as its last day (DTEND is exclusive) at 23:59:59.
 */
export function eventDates(vevent: ICALModule.Component, context: DateContext): EventDates {
  const start = readProperty(vevent, 'dtstart', context);
  if (!start) throw new DateProblem('missing_start', 'no DTSTART');
  const endValue = readProperty(vevent, 'dtend', context);
  const duration = vevent.getFirstPropertyValue('duration') as unknown;
  let seconds: number;
  if (endValue) {
    if (endValue.isDate !== start.isDate) {
      throw new DateProblem('bad_dates', 'DTSTART and DTEND are not both dates or both date-times');
    }
    seconds = endValue.seconds - start.seconds;
  } else if (duration && typeof (duration as ICALModule.Duration).toSeconds === 'function') {
    seconds = (duration as ICALModule.Duration).toSeconds();
  } else {
    seconds = start.isDate ? DAY : 0;
  }
  if (seconds < 0 || seconds > MAX_DURATION_SECONDS || !Number.isFinite(seconds)) {
    throw new DateProblem('bad_dates', 'the end is before the start or years after it');
  }
  if (start.isDate) {
    // Whole days; an end on the start's day (or none) is one day.
    const days = Math.max(1, Math.round(seconds / DAY));
    const first = Date.parse(`${start.local.slice(0, 10)}T00:00:00Z`) / 1000;
    const last = wallAt(first + (days - 1) * DAY, 'UTC').slice(0, 10);
    return {
      allDay: true,
      start: { local: start.local, timezone: start.timezone },
      end: { local: `${last} 23:59:59`, timezone: start.timezone },
    };
  }
  const end = wallAt(start.seconds + seconds, start.timezone);
  if (Number(end.slice(0, 4)) > MAX_YEAR) {
    throw new DateProblem('bad_dates', 'DTEND is outside the years 1000-9999');
  }
  return {
    allDay: false,
    start: { local: start.local, timezone: start.timezone },
    end: { local: end, timezone: start.timezone },
  };
}
