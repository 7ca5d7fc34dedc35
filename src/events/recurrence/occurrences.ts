import { DateTime, type Zone } from 'luxon';
import { RRule } from 'rrule';
import { ApiError } from '../../common/errors/api-error';
import { toWire, wallClockInstant, zoneOffset } from '../../common/time/dates';
import { Recurrence, untilDate } from './recurrence-lines';
import { walkRule } from './rule-walk';

/*
 * Expansion of a series (docs/api.md §16). The rule is expanded by `rrule` on
 * "floating" wall-clock times (each JS Date's UTC fields are the wall clock),
 * so it never sees a daylight-saving change; each occurrence's wall-clock
 * start is then placed in the event's zone, so every occurrence keeps the
 * series' time of day across the changes of March and October.
 */

/** The series' times an expansion needs (an event's stored columns). */
export interface SeriesTimes {
  startLocal: string;
  endLocal: string;
  startAt: number;
  endAt: number;
  allDay: boolean;
}

/** One occurrence's times, named by its date (`YYYY-MM-DD` in the event's zone). */
export interface OccurrenceTimes {
  date: string;
  startLocal: string;
  endLocal: string;
  startAt: number;
  endAt: number;
}

/** At most this many occurrences are materialized for one series in one write. */
export const MAX_OCCURRENCES = 5000;

/** `YYYY-MM-DD HH:MM:SS` as a floating Date (its UTC fields are the wall clock). */
function floating(local: string): Date {
  return new Date(`${local.replace(' ', 'T')}Z`);
}

const dateOf = (local: string) => local.slice(0, 10);

/**
 * The dates of the occurrences other than the series itself: the rule's and
 * the RDATEs, less the EXDATEs, after the series' start date and up to
 * `through` (inclusive), after `after` (exclusive) when given. More than
 * MAX_OCCURRENCES, or a rule that needs more steps than MAX_RULE_STEPS to
 * reach `through` → 400, so no write and no job does unbounded work.
 */
export function occurrenceDates(
  recurrence: Recurrence,
  series: Pick<SeriesTimes, 'startLocal'>,
  zone: Zone,
  through: string,
  after?: string,
): string[] {
  const startDate = dateOf(series.startLocal);
  const lower = after && after > startDate ? after : startDate;
  if (through <= lower) return [];
  const dates = new Set<string>();
  const excluded = new Set(recurrence.excluded);
  const add = (date: string) => {
    if (date <= lower || date > through || excluded.has(date)) return;
    dates.add(date);
    if (dates.size > MAX_OCCURRENCES)
      throw ApiError.invalid('recurrence', 'recurrenceTooMany', { max: MAX_OCCURRENCES });
  };
  if (recurrence.rule) {
    const rule = floatingRule(recurrence, series, zone);
    // The walk stops once past `through` or past the cap, so an open rule costs only its window.
    walkRule(rule, floating(`${through} 23:59:59`), (date) => {
      const day = date.toISOString().slice(0, 10);
      if (day > through) return false;
      add(day);
      return true;
    });
  }
  recurrence.added.forEach(add);
  return [...dates].sort();
}

/** The series' RRULE on the floating scale, DTSTART its start. */
function floatingRule(
  recurrence: Recurrence,
  series: Pick<SeriesTimes, 'startLocal'>,
  zone: Zone,
): RRule {
  return new RRule({
    ...recurrence.rule,
    dtstart: floating(series.startLocal),
    until: recurrence.until ? floatingUntil(recurrence.until, zone) : null,
    tzid: null,
  });
}

/**
 * Whether the rule itself gives the series' start. The series is always its
 * own first occurrence, but a DTSTART that the RRULE does not give is left
 * undefined by RFC 5545 §3.8.5.3, and ical.js drops it.
 */
export function ruleGivesStart(
  recurrence: Recurrence,
  series: Pick<SeriesTimes, 'startLocal'>,
  zone: Zone,
): boolean {
  if (!recurrence.rule) return true;
  const start = dateOf(series.startLocal);
  let gives = false;
  walkRule(floatingRule(recurrence, series, zone), floating(`${start} 23:59:59`), (date) => {
    gives = date.toISOString().slice(0, 10) === start;
    return false;
  });
  return gives;
}

/** UNTIL on the floating scale: a UTC time moved to the zone's wall clock; a date is its whole day. */
function floatingUntil(value: string, zone: Zone): Date {
  const parts = untilDate(value) as DateTime;
  if (value.length === 8) return floating(`${parts.toISODate()} 23:59:59`);
  const wall = value.endsWith('Z') ? parts.setZone(zone) : parts;
  return floating(toWire(wall));
}

/** `YYYY-MM-DD HH:MM:SS` of an instant in `zone`. */
function localOf(seconds: number, zone: Zone): string {
  const wall = new Date((seconds + zoneOffset(zone, seconds) * 60) * 1000).toISOString();
  return `${wall.slice(0, 10)} ${wall.slice(11, 19)}`;
}

/**
 * The times of the occurrence on `date`: the series' time of day on that
 * date in the event's zone, and the series' duration (all-day series: the
 * same number of whole days, ending at 23:59:59).
 */
export function occurrenceTimes(date: string, series: SeriesTimes, zone: Zone): OccurrenceTimes {
  const startAt = wallClockInstant(`${date}${series.startLocal.slice(10)}`, zone);
  let endAt: number;
  if (series.allDay) {
    const days = Math.round(
      (floating(`${dateOf(series.endLocal)} 00:00:00`).getTime() -
        floating(`${dateOf(series.startLocal)} 00:00:00`).getTime()) /
        86_400_000,
    );
    const endDate = new Date(floating(`${date} 00:00:00`).getTime() + days * 86_400_000)
      .toISOString()
      .slice(0, 10);
    endAt = wallClockInstant(`${endDate} 23:59:59`, zone);
  } else {
    endAt = startAt + (series.endAt - series.startAt);
  }
  return {
    date,
    startLocal: localOf(startAt, zone),
    endLocal: localOf(endAt, zone),
    startAt,
    endAt,
  };
}

/**
 * The last date occurrences are materialized for: RECURRENCE_HORIZON_MONTHS
 * after the later of today (in the event's zone) and the series' start date.
 */
export function horizonDate(
  now: DateTime,
  series: Pick<SeriesTimes, 'startLocal'>,
  zone: Zone,
  months: number,
): string {
  const today = now.setZone(zone).toISODate() as string;
  const from = dateOf(series.startLocal) > today ? dateOf(series.startLocal) : today;
  return DateTime.fromISO(from).plus({ months }).toISODate() as string;
}
