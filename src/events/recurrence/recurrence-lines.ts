import { DateTime, type Zone } from 'luxon';
import { Options, RRule } from 'rrule';
import { ApiError } from '../../common/errors/api-error';
import { parseZone } from '../../common/time/dates';

/*
 * The `recurrence` lines of an event (docs/api.md §16): RFC 5545 RRULE, RDATE
 * and EXDATE, read in the event's zone with its start as DTSTART. Every
 * occurrence has the series' time of day, so it is named by its date in the
 * event's zone: rules finer than a day (FREQ=HOURLY, BYHOUR, …) are refused,
 * and RDATE/EXDATE values count by the date they fall on in that zone.
 */

/** The lines, checked: the rule's options (without DTSTART) and the added and excluded dates. */
export interface Recurrence {
  /** Options for `rrule`, with UNTIL still to be read in the event's zone. */
  rule?: Partial<Options>;
  /** UNTIL as written: `YYYYMMDD`, `YYYYMMDDTHHMMSS` (the event's zone) or `…Z` (UTC). */
  until?: string;
  /** RDATE dates, `YYYY-MM-DD` in the event's zone. */
  added: string[];
  /** EXDATE dates, `YYYY-MM-DD` in the event's zone. */
  excluded: string[];
}

/** Where a line went wrong: the reason key of the catalogue and the part quoted in the message. */
function lineError(line: number, reason: string, part = ''): ApiError {
  return ApiError.invalid('recurrence', reason, { line, part });
}

const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'];
const FINER_FREQUENCIES = ['SECONDLY', 'MINUTELY', 'HOURLY'];
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const DATE_RE = /^(\d{4})(\d{2})(\d{2})$/;
const DATE_TIME_RE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;

/** Integer lists with their bounds (zero is never allowed; negatives count from the end). */
const NUMBER_LISTS: Record<string, { max: number; signed: boolean }> = {
  BYMONTHDAY: { max: 31, signed: true },
  BYYEARDAY: { max: 366, signed: true },
  BYWEEKNO: { max: 53, signed: true },
  BYMONTH: { max: 12, signed: false },
  BYSETPOS: { max: 366, signed: true },
};

/**
 * Reads and checks the lines; 400 `rest_invalid_param` with
 * `params.recurrence` naming the line (1-based) and what is wrong in it.
 */
export function parseRecurrence(lines: string[], eventZone: Zone): Recurrence {
  const result: Recurrence = { added: [], excluded: [] };
  lines.forEach((raw, index) => {
    const line = index + 1;
    const text = raw.trim();
    const colon = text.indexOf(':');
    const head = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1);
    const [name, ...params] = head.split(';');
    const kind = name.toUpperCase();
    if (colon < 0 || !['RRULE', 'RDATE', 'EXDATE'].includes(kind)) {
      throw lineError(line, 'recurrenceLine', text.slice(0, 40));
    }
    if (kind === 'RRULE') {
      if (params.length > 0) throw lineError(line, 'recurrencePart', params.join(';'));
      if (result.rule) throw lineError(line, 'recurrenceSecondRule', 'RRULE');
      Object.assign(result, parseRule(value, line));
      if (result.until && !untilFits(result.until, eventZone))
        throw lineError(line, 'recurrenceYears', `UNTIL=${result.until}`);
    } else {
      const dates = parseDateList(params, value, line, eventZone);
      (kind === 'RDATE' ? result.added : result.excluded).push(...dates);
    }
  });
  result.added = [...new Set(result.added)].sort();
  result.excluded = [...new Set(result.excluded)].sort();
  return result;
}

function parseRule(value: string, line: number): Pick<Recurrence, 'rule' | 'until'> {
  const parts = new Map<string, string>();
  for (const part of value.split(';')) {
    const [key, val, ...extra] = part.split('=');
    const upperKey = key.toUpperCase();
    if (!key || val === undefined || val === '' || extra.length > 0)
      throw lineError(line, 'recurrencePart', part);
    if (parts.has(upperKey)) throw lineError(line, 'recurrencePart', part);
    parts.set(upperKey, val.toUpperCase());
  }
  const freq = parts.get('FREQ');
  if (freq === undefined) throw lineError(line, 'recurrenceNoFreq', 'FREQ');
  if (FINER_FREQUENCIES.includes(freq)) throw lineError(line, 'recurrenceFiner', `FREQ=${freq}`);
  if (!FREQUENCIES.includes(freq)) throw lineError(line, 'recurrencePart', `FREQ=${freq}`);
  if (parts.has('COUNT') && parts.has('UNTIL'))
    throw lineError(line, 'recurrenceCountUntil', 'COUNT, UNTIL');
  for (const [key, val] of parts) {
    const part = `${key}=${val}`;
    if (['BYHOUR', 'BYMINUTE', 'BYSECOND'].includes(key))
      throw lineError(line, 'recurrenceFiner', part);
    if (!partIsValid(key, val, freq)) throw lineError(line, 'recurrencePart', part);
  }
  if (!monthDaysExist(parts.get('BYMONTH'), parts.get('BYMONTHDAY')))
    throw lineError(line, 'recurrenceNever', `BYMONTH=${parts.get('BYMONTH')}`);
  const until = parts.get('UNTIL');
  parts.delete('UNTIL');
  const options = RRule.parseString([...parts].map(([k, v]) => `${k}=${v}`).join(';'));
  return { rule: options, until };
}

/** One part of an RRULE, checked against RFC 5545 §3.3.10 (including which BYxxx fit which FREQ). */
function partIsValid(key: string, val: string, freq: string): boolean {
  switch (key) {
    case 'FREQ':
      return true;
    case 'INTERVAL':
      return /^\d{1,4}$/.test(val) && Number(val) >= 1;
    case 'COUNT':
      return /^\d{1,5}$/.test(val) && Number(val) >= 1;
    case 'UNTIL':
      return untilDate(val) !== undefined;
    case 'WKST':
      return WEEKDAYS.includes(val);
    case 'BYDAY':
      return val.split(',').every((day) => {
        const match = /^([+-]?)(\d{0,2})(MO|TU|WE|TH|FR|SA|SU)$/.exec(day);
        if (!match) return false;
        if (match[2] === '') return match[1] === '';
        const n = Number(match[2]);
        // An ordinal (the last Friday: -1FR) only means something in a month or a year.
        return n >= 1 && (freq === 'MONTHLY' ? n <= 5 : freq === 'YEARLY' && n <= 53);
      });
    default: {
      const bounds = NUMBER_LISTS[key];
      if (!bounds) return false;
      if (key === 'BYMONTHDAY' && freq === 'WEEKLY') return false;
      if (key === 'BYYEARDAY' && freq !== 'YEARLY') return false;
      if (key === 'BYWEEKNO' && freq !== 'YEARLY') return false;
      // Picking the n-th of a day's or week's dates means nothing; a month has at most 31.
      if (key === 'BYSETPOS' && freq !== 'YEARLY' && freq !== 'MONTHLY') return false;
      const max = key === 'BYSETPOS' && freq === 'MONTHLY' ? 31 : bounds.max;
      return val.split(',').every((item) => {
        const match = /^([+-]?)(\d{1,3})$/.exec(item);
        if (!match || (match[1] && !bounds.signed)) return false;
        const n = Number(match[2]);
        return n >= 1 && n <= max;
      });
    }
  }
}

const MONTH_LENGTHS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether some month of BYMONTH has some day of BYMONTHDAY. A rule that can
 * never produce a date (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30) would make
 * `rrule` walk day by day to the year 9999 (about 26 s): refused instead.
 */
function monthDaysExist(months: string | undefined, days: string | undefined): boolean {
  if (!months || !days) return true;
  return months.split(',').some((month) => {
    const length = MONTH_LENGTHS[Number(month) - 1];
    return days.split(',').some((day) => Math.abs(Number(day)) <= length);
  });
}

const inYears = (moment: DateTime) => moment.year >= 1000 && moment.year <= 9999;

/**
 * Whether UNTIL lies within the years 1000–9999 both on the event's wall
 * clock (where the rule is expanded) and in UTC (how the iCalendar export
 * writes it): `99991231T200000Z` is the year 10000 in Tokyo.
 */
function untilFits(value: string, zone: Zone): boolean {
  const parts = untilDate(value) as DateTime;
  if (value.endsWith('Z')) return inYears(parts.setZone(zone));
  const wall = value.length === 8 ? parts.set({ hour: 23, minute: 59, second: 59 }) : parts;
  return inYears(DateTime.fromObject(wall.toObject(), { zone }).toUTC());
}

/** A valid UNTIL value's parts, or undefined. */
export function untilDate(value: string): DateTime | undefined {
  const date = DATE_RE.exec(value);
  const dateTime = DATE_TIME_RE.exec(value);
  const m = date ?? dateTime;
  if (!m) return undefined;
  const parsed = DateTime.fromObject(
    {
      year: Number(m[1]),
      month: Number(m[2]),
      day: Number(m[3]),
      hour: Number(m[4] ?? 0),
      minute: Number(m[5] ?? 0),
      second: Number(m[6] ?? 0),
    },
    { zone: 'UTC' },
  );
  return parsed.isValid && parsed.year >= 1000 ? parsed : undefined;
}

/**
 * RDATE/EXDATE values: `VALUE=DATE` dates or date-times, in the line's TZID,
 * in UTC (`Z`), or else in the event's zone; each counts by its date in the event's zone.
 */
function parseDateList(params: string[], value: string, line: number, eventZone: Zone): string[] {
  let zone = eventZone;
  let valueType: string | undefined;
  for (const param of params) {
    const [key, val, ...extra] = param.split('=');
    const upperKey = key.toUpperCase();
    const paramZone = upperKey === 'TZID' && val ? parseZone(val) : undefined;
    if (paramZone && extra.length === 0) {
      zone = paramZone;
    } else if (
      upperKey === 'VALUE' &&
      ['DATE', 'DATE-TIME'].includes(val?.toUpperCase()) &&
      extra.length === 0
    ) {
      valueType = val.toUpperCase();
    } else {
      throw lineError(line, 'recurrencePart', param);
    }
  }
  if (value === '') throw lineError(line, 'recurrencePart', '');
  return value.split(',').map((item) => {
    const asDate = DATE_RE.test(item) && valueType !== 'DATE-TIME';
    const asDateTime = DATE_TIME_RE.test(item) && valueType !== 'DATE';
    const parts = untilDate(item);
    if (!parts || (!asDate && !asDateTime)) throw lineError(line, 'recurrenceDate', item);
    if (asDate) return parts.toISODate() as string;
    const instant = item.endsWith('Z') ? parts : DateTime.fromObject(parts.toObject(), { zone });
    const local = instant.setZone(eventZone);
    if (!inYears(local)) throw lineError(line, 'recurrenceYears', item);
    return local.toISODate() as string;
  });
}
