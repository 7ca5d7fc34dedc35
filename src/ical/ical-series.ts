import { DateTime, FixedOffsetZone } from 'luxon';
import { parseZone, utcWire, wallClockInstant } from '../common/time/dates';
import { occurrenceDates, ruleGivesStart } from '../events/recurrence/occurrences';
import { parseRecurrence, Recurrence, untilDate } from '../events/recurrence/recurrence-lines';
import { contentLine, dateTimeValue, dateValue, type Params } from './ical-text';
import { zoneBlock } from './ical-zones';

/*
 * A recurring series as one VEVENT (docs/api.md §14, §16): DTSTART in the
 * series' zone, because that is the zone the rule is read in (a weekly 19:00
 * stays at 19:00 across daylight-saving changes only when the client expands
 * it in that zone), and its RRULE/RDATE/EXDATE lines rewritten in that same
 * form. Occurrences are named by their date in the series' zone, so every
 * RDATE, EXDATE and RECURRENCE-ID is that date at the series' time of day.
 */

/** What the series export needs of the series' row. */
export interface SeriesRow {
  id: number;
  timezone: string;
  startLocal: string;
  endLocal: string;
  allDay: boolean;
  /** The `recurrence` column: a JSON array of lines. */
  recurrence: string;
}

/** How the series' times are written: whole days, local time with a TZID, or UTC. */
type TimeForm = { kind: 'date' } | { kind: 'local'; tzid: string } | { kind: 'utc' };

/** `UTC±H[:MM]` with a non-zero offset: written with a VTIMEZONE of its own (fixedZoneBlock). */
export function isFixedOffset(zone: string): boolean {
  const parsed = /^UTC/i.test(zone) ? parseZone(zone) : undefined;
  return parsed !== undefined && parsed.offset(0) !== 0;
}

function timeForm(series: Pick<SeriesRow, 'timezone' | 'allDay'>): TimeForm {
  if (series.allDay) return { kind: 'date' };
  if (isFixedOffset(series.timezone)) return { kind: 'local', tzid: series.timezone };
  if (!/^UTC/i.test(series.timezone) && zoneBlock(series.timezone)) {
    return { kind: 'local', tzid: series.timezone };
  }
  // UTC itself, or a zone the VTIMEZONE library does not know: the instants in UTC.
  return { kind: 'utc' };
}

/**
 * The VTIMEZONE of a fixed offset (`UTC+5`): one STANDARD part, no changes.
 * Written only for series: a single event in such a zone is written in UTC,
 * but a rule must be expanded on the zone's wall clock (BYDAY near midnight).
 */
export function fixedZoneBlock(zone: string): string {
  const minutes = (parseZone(zone) ?? FixedOffsetZone.utcInstance).offset(0);
  const abs = Math.abs(minutes);
  const offset = `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return (
    'BEGIN:VTIMEZONE\r\n' +
    contentLine('TZID', zone) +
    'BEGIN:STANDARD\r\n' +
    contentLine('DTSTART', '19700101T000000') +
    contentLine('TZOFFSETFROM', offset) +
    contentLine('TZOFFSETTO', offset) +
    contentLine('TZNAME', zone) +
    'END:STANDARD\r\nEND:VTIMEZONE\r\n'
  );
}

/** The value and parameters of the occurrence on `date` (`YYYY-MM-DD`), as DTSTART would be written. */
function occurrenceValue(series: SeriesRow, form: TimeForm, date: string): [string, Params?] {
  if (form.kind === 'date') return [dateValue(date), { VALUE: 'DATE' }];
  const local = `${date}${series.startLocal.slice(10)}`;
  if (form.kind === 'local') return [dateTimeValue(local), { TZID: form.tzid }];
  return [`${dateTimeValue(utcWire(wallClockInstant(local, zoneOf(series))))}Z`];
}

const zoneOf = (series: Pick<SeriesRow, 'timezone'>) =>
  parseZone(series.timezone) ?? FixedOffsetZone.utcInstance;

/** DTSTART and DTEND of the series' own VEVENT, in the form its rule is read in. */
export function seriesDateLines(series: SeriesRow, startUtc: string, endUtc: string): string {
  const form = timeForm(series);
  if (form.kind === 'date') {
    const end = DateTime.fromISO(series.endLocal.slice(0, 10), { zone: 'utc' }).plus({ days: 1 });
    return (
      contentLine('DTSTART', dateValue(series.startLocal), { VALUE: 'DATE' }) +
      contentLine('DTEND', end.toFormat('yyyyMMdd'), { VALUE: 'DATE' })
    );
  }
  if (form.kind === 'local') {
    const params = { TZID: form.tzid };
    return (
      contentLine('DTSTART', dateTimeValue(series.startLocal), params) +
      contentLine('DTEND', dateTimeValue(series.endLocal), params)
    );
  }
  return (
    contentLine('DTSTART', `${dateTimeValue(startUtc)}Z`) +
    contentLine('DTEND', `${dateTimeValue(endUtc)}Z`)
  );
}

/** The RECURRENCE-ID of the occurrence on `date`: its original start, in the series' DTSTART form. */
export function recurrenceIdLine(series: SeriesRow, date: string): string {
  const [value, params] = occurrenceValue(series, timeForm(series), date);
  return contentLine('RECURRENCE-ID', value, params);
}

/** Dates the feed adds to the stored lines for this caller. */
export interface SeriesExtras {
  /** Dates of detached occurrences the caller may not see: EXDATEs, so the rule does not show them. */
  hidden: string[];
  /** Dates of detached occurrences the caller sees: RDATEs when the rule no longer gives them. */
  detached: string[];
}

/**
 * RRULE, RDATE and EXDATE lines of the series. UNTIL is rewritten to the
 * form RFC 5545 §3.3.10 requires beside DTSTART (a DATE for all-day series,
 * UTC otherwise) with the meaning docs/recurrence.md gives it; RDATE/EXDATE
 * values become the series' time on their date.
 */
export function recurrenceLines(series: SeriesRow, extras: SeriesExtras): string {
  const form = timeForm(series);
  const zone = zoneOf(series);
  const recurrence = parseRecurrence(JSON.parse(series.recurrence) as string[], zone);
  const startDate = series.startLocal.slice(0, 10);
  let text = '';
  const rule = (JSON.parse(series.recurrence) as string[])
    .map((line) => line.trim())
    .find((line) => /^RRULE:/i.test(line));
  if (rule) text += contentLine('RRULE', ruleValue(rule.slice(6), series, form));
  const added = new Set(recurrence.added.filter((date) => date > startDate));
  if (!ruleGivesStart(recurrence, series, zone)) added.add(startDate);
  for (const date of missingFromRule(recurrence, series, extras.detached)) added.add(date);
  const excluded = new Set([...recurrence.excluded, ...extras.hidden]);
  text += dateListLine(
    'RDATE',
    series,
    form,
    [...added].filter((date) => !excluded.has(date)),
  );
  text += dateListLine('EXDATE', series, form, givenOf(recurrence, series, [...excluded]));
  return text;
}

/**
 * Of `dates`, those the rule gives (or the start): only they need an EXDATE.
 * The stored lines keep the dates of deleted occurrences after a rule change,
 * and ical.js then keeps an occurrence whose EXDATE follows such a date.
 */
function givenOf(recurrence: Recurrence, series: SeriesRow, dates: string[]): string[] {
  if (dates.length === 0) return [];
  // The rule's own dates: the excluded ones are what is asked about.
  const given = datesOfRule({ ...recurrence, excluded: [] }, series, dates);
  return given ? dates.filter((date) => given.has(date)) : dates;
}

/**
 * The dates the rule gives up to the latest of `dates`, with the series'
 * start; undefined when the rule cannot be walked that far (bounded walk).
 */
function datesOfRule(
  recurrence: Recurrence,
  series: SeriesRow,
  dates: string[],
): Set<string> | undefined {
  const through = dates.reduce((a, b) => (a > b ? a : b));
  try {
    const given = new Set(occurrenceDates(recurrence, series, zoneOf(series), through));
    return given.add(series.startLocal.slice(0, 10));
  } catch {
    return undefined;
  }
}

/** The rule's parts upper-cased, with UNTIL in the form that fits DTSTART. */
function ruleValue(value: string, series: SeriesRow, form: TimeForm): string {
  return value
    .split(';')
    .map((part) => {
      const [key, val] = part.split('=').map((s) => s.toUpperCase());
      return key === 'UNTIL' ? `UNTIL=${untilValue(val, series, form)}` : `${key}=${val}`;
    })
    .join(';');
}

/**
 * UNTIL as docs/recurrence.md reads it (a date includes its whole day, a
 * local date-time is in the series' zone, `Z` is an instant), written as a
 * DATE beside a DATE DTSTART and as UTC beside any other (RFC 5545 §3.3.10).
 */
function untilValue(value: string, series: SeriesRow, form: TimeForm): string {
  const zone = zoneOf(series);
  const parts = untilDate(value);
  if (!parts) return value;
  if (form.kind === 'date') {
    return value.endsWith('Z')
      ? (parts.setZone(zone).toFormat('yyyyMMdd') ?? value)
      : value.slice(0, 8);
  }
  if (value.endsWith('Z')) return value;
  const local =
    value.length === 8 ? `${parts.toISODate()} 23:59:59` : parts.toFormat('yyyy-MM-dd HH:mm:ss');
  return `${dateTimeValue(utcWire(wallClockInstant(local, zone)))}Z`;
}

/**
 * Detached occurrences' dates the rule does not give (any more): a series
 * edit left them in place, so the export adds them as RDATEs for their
 * RECURRENCE-ID to refer to (RFC 5545 §3.8.4.4).
 */
function missingFromRule(recurrence: Recurrence, series: SeriesRow, dates: string[]): string[] {
  if (dates.length === 0) return [];
  const given = datesOfRule(recurrence, series, dates) ?? new Set([series.startLocal.slice(0, 10)]);
  return dates.filter((date) => !given.has(date));
}

function dateListLine(name: string, series: SeriesRow, form: TimeForm, dates: string[]): string {
  if (dates.length === 0) return '';
  const values = dates.sort().map((date) => occurrenceValue(series, form, date));
  return contentLine(name, values.map(([value]) => value).join(','), values[0][1]);
}
