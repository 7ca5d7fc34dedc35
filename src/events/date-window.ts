import { DateTime, Zone } from 'luxon';
import { parseDateInput } from '../common/time/dates';

/** The date filters of `GET /events` as sent (already checked to be dates). */
export interface DateFilters {
  start_date?: string | number;
  end_date?: string | number;
  starts_before?: string | number;
  starts_after?: string | number;
  ends_before?: string | number;
  ends_after?: string | number;
  strict_dates?: boolean;
}

/** Inclusive bounds in unix seconds on an event's start and end. */
export interface EventWindow {
  startMin?: number;
  startMax?: number;
  endMin?: number;
  endMax?: number;
}

/**
 * The bounds a list applies (docs/api.md §5.1). `start_date` means "starting on
 * or after", `end_date` "ending on or before"; they default to yesterday
 * 00:00:00 and now + 24 months, unless one of `starts_*`/`ends_*` is sent.
 * Values without an offset are read in `siteZone`. Without `strict_dates`
 * lower bounds widen to 00:00:00 of their day and upper bounds to 23:59:59.
 */
export function eventWindow(filters: DateFilters, siteZone: Zone, now: DateTime): EventWindow {
  const noDates = DATE_FILTERS.every((name) => filters[name] === undefined);
  return noDates && filters.strict_dates !== true
    ? defaultWindow(siteZone, now)
    : windowOf(filters, siteZone, now);
}

const DATE_FILTERS = [
  'start_date',
  'end_date',
  'starts_before',
  'starts_after',
  'ends_before',
  'ends_after',
] as const;

/** The default window of the site day that holds the instant, per zone (see defaultWindow). */
interface KeptDay {
  from: number;
  until: number;
  window: EventWindow;
}
// Not write state: the last default window per site time zone, a value of the day alone.
const keptDays = new Map<string, KeptDay>();

/**
 * The window of a list without date filters: whole days (yesterday 00:00 to
 * the end of the day 24 months on), so the same all day long. Kept per zone
 * for its day: a time zone's day arithmetic costs more than the rest of a
 * list's filters (luxon reads offsets through Intl).
 */
function defaultWindow(siteZone: Zone, now: DateTime): EventWindow {
  const at = now.toMillis();
  const kept = keptDays.get(siteZone.name);
  if (kept && at >= kept.from && at < kept.until) return { ...kept.window };
  const today = now.setZone(siteZone);
  const window = windowOf({}, siteZone, now);
  keptDays.set(siteZone.name, {
    from: today.startOf('day').toMillis(),
    until: today.endOf('day').toMillis() + 1,
    window,
  });
  return { ...window };
}

/** The window of any filters, computed (eventWindow). */
export function windowOf(filters: DateFilters, siteZone: Zone, now: DateTime): EventWindow {
  const strict = filters.strict_dates === true;
  const read = (value: string | number | undefined) =>
    value === undefined ? undefined : parseDateInput(value, siteZone);
  const lower = (value: DateTime | undefined) =>
    value && seconds(strict ? value : value.startOf('day'));
  const upper = (value: DateTime | undefined) =>
    value && seconds(strict ? value : value.endOf('day'));

  const defaults = [
    filters.starts_before,
    filters.starts_after,
    filters.ends_before,
    filters.ends_after,
  ].every((value) => value === undefined);
  const today = now.setZone(siteZone);
  const startDate =
    read(filters.start_date) ?? (defaults ? today.minus({ days: 1 }).startOf('day') : undefined);
  const endDate = read(filters.end_date) ?? (defaults ? today.plus({ months: 24 }) : undefined);

  const startMin = max(lower(startDate), lower(read(filters.starts_after)));
  const endMax = min(upper(endDate), upper(read(filters.ends_before)));
  return {
    startMin,
    // No event ends before it starts: an end bound also bounds the start, which the index can use.
    startMax: min(upper(read(filters.starts_before)), endMax),
    endMin: lower(read(filters.ends_after)),
    endMax,
  };
}

function seconds(value: DateTime): number {
  return Math.floor(value.toSeconds());
}

function min(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

function max(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}
