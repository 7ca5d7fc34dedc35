import { DateTime, FixedOffsetZone, type Zone } from 'luxon';
import { parseZone } from '../../../src/common/time/dates';
import {
  horizonDate,
  occurrenceDates,
  occurrenceTimes,
  SeriesTimes,
} from '../../../src/events/recurrence/occurrences';
import { parseRecurrence } from '../../../src/events/recurrence/recurrence-lines';
import { MAX_SLUG_LENGTH } from '../../../src/posts/slugs';
import { SeedPlan } from '../plan';
import { Random, STREAM } from '../prng';
import { LANGUAGES, Row, translationId } from '../schema';
import { formatDay, SECONDS_PER_DAY } from '../time';
import { EventRows, pushEvent } from './events';

/*
 * Recurring series (docs/api.md §16) as the service stores them: the series
 * is an event with its `recurrence` lines, `series_id` = its own ID and
 * `materialized_until` = its horizon; every other date is an event row of its
 * own right after it (as a create makes them), a copy of the series on that
 * date: `parent_id` (post_parent) and `series_id` = the series, its
 * `occurrence_date`, the series' wall-clock time in its zone and duration,
 * both translations (slug `<series slug>-<date>`), terms and organizers.
 * The dates and times come from the service's own expansion
 * (src/events/recurrence), so the rows equal what the API would write.
 */

/** Series start within a year either side of today; their occurrences run up to the horizon. */
const START_SPREAD_DAYS = 365;
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/** Index of `parent_id` in an event row (TABLES.events.columns). */
const PARENT = 21;

export interface SeriesRows extends EventRows {
  /** Series written. */
  series: number;
  /** The ID after the last row written: the next series starts there. */
  nextId: number;
}

/** "Now" for the horizon: noon UTC of the plan's today, the same calendar day in every seeded zone. */
export function seriesNow(plan: SeedPlan): DateTime {
  return DateTime.fromSeconds(plan.now + SECONDS_PER_DAY / 2, { zone: 'UTC' });
}

const zones = new Map<string, Zone>();
function zoneOf(name: string): Zone {
  let zone = zones.get(name);
  if (!zone) zones.set(name, (zone = parseZone(name) ?? FixedOffsetZone.utcInstance));
  return zone;
}

/** `YYYY-MM-DD` → `YYYYMMDD`. */
const compact = (date: string) => date.replace(/-/g, '');

/**
 * The lines of series `index`: daily, weekly on one to three days or
 * monthly (by day of the month or by weekday), open, with COUNT or with
 * UNTIL; the termination weighted so that a series has about a hundred
 * occurrences on average up to a 24-month horizon.
 */
export function seriesRule(rng: Random, startDay: number): string {
  const date = formatDay(startDay);
  const weekday = (startDay + 3) % 7;
  const until = (days: number) => {
    const last = formatDay(startDay + days);
    return rng.chance(0.5) ? `UNTIL=${compact(last)}` : `UNTIL=${compact(last)}T235959Z`;
  };
  const kind = rng.weighted([
    ['daily', 20],
    ['weekly', 50],
    ['monthly', 30],
  ] as const);
  if (kind === 'daily') {
    const ending = rng.weighted([
      ['count', 35],
      ['until', 35],
      ['open', 30],
    ] as const);
    const interval = ending === 'open' ? rng.pick([1, 2, 3, 7]) : rng.chance(0.2) ? 2 : 1;
    const base = `RRULE:FREQ=DAILY${interval > 1 ? `;INTERVAL=${interval}` : ''}`;
    if (ending === 'count') return `${base};COUNT=${rng.int(3, 120)}`;
    if (ending === 'until') return `${base};${until(rng.int(7, 240))}`;
    return base;
  }
  if (kind === 'weekly') {
    const days = new Set<number>([weekday]);
    const wanted = rng.weighted([
      [1, 55],
      [2, 30],
      [3, 15],
    ] as const);
    while (days.size < wanted) days.add(rng.int(0, 6));
    const byDay = [...days]
      .sort((a, b) => a - b)
      .map((d) => WEEKDAYS[d])
      .join(',');
    const interval = rng.chance(0.2) ? 2 : 1;
    const base = `RRULE:FREQ=WEEKLY${interval > 1 ? `;INTERVAL=${interval}` : ''};BYDAY=${byDay}`;
    const ending = rng.weighted([
      ['count', 25],
      ['until', 25],
      ['open', 50],
    ] as const);
    if (ending === 'count') return `${base};COUNT=${rng.int(4, 80)}`;
    if (ending === 'until') return `${base};${until(rng.int(30, 540))}`;
    return base;
  }
  const dayOfMonth = Number(date.slice(8, 10));
  const base =
    dayOfMonth <= 28 && rng.chance(0.5)
      ? `RRULE:FREQ=MONTHLY;BYMONTHDAY=${dayOfMonth}`
      : `RRULE:FREQ=MONTHLY;BYDAY=${dayOfMonth > 21 && rng.chance(0.5) ? -1 : Math.ceil(Math.min(dayOfMonth, 28) / 7)}${WEEKDAYS[weekday]}`;
  const ending = rng.weighted([
    ['count', 30],
    ['until', 20],
    ['open', 50],
  ] as const);
  if (ending === 'count') return `${base};COUNT=${rng.int(3, 12)}`;
  if (ending === 'until') return `${base};${until(rng.int(90, 540))}`;
  return base;
}

/**
 * Series `from`..`to` (1-based, inclusive) with their occurrences, the
 * first series getting ID `firstId`; stops early, after a whole series, once
 * `maxEvents` event rows are made (`series` tells how many).
 * `publishedTerms[termId]` is incremented for each term link of a published row.
 */
export function seriesRows(
  plan: SeedPlan,
  from: number,
  to: number,
  firstId: number,
  publishedTerms?: Int32Array,
  maxEvents = Infinity,
): SeriesRows {
  const out: SeriesRows = {
    events: [],
    translations: [],
    terms: [],
    organizers: [],
    series: 0,
    nextId: firstId,
  };
  const now = seriesNow(plan);
  const firstDay = plan.today - START_SPREAD_DAYS;
  const spread = 2 * START_SPREAD_DAYS + 1;
  const count = Math.max(plan.series, to);
  for (let index = from; index <= to && out.events.length < maxEvents; index++) {
    const id = out.nextId;
    const rng = Random.of(plan.seed, STREAM.series, index);
    const day = firstDay + Math.floor(((index - 0.5) / count) * spread) + rng.int(-30, 30);
    const one: EventRows = { events: [], translations: [], terms: [], organizers: [] };
    pushEvent(plan, rng, id, day, one, publishedTerms);
    const series = one.events[0];
    series[PARENT] = null;
    const zoneName = String(series[7]);
    const zone = zoneOf(zoneName);
    const times: SeriesTimes = {
      startLocal: String(series[8]),
      endLocal: String(series[9]),
      startAt: Number(series[10]),
      endAt: Number(series[11]),
      allDay: series[12] === 1,
    };
    const ruleRng = Random.of(plan.seed, STREAM.seriesRule, index);
    const lines = [seriesRule(ruleRng, day)];
    const through = horizonDate(now, times, zone, plan.horizonMonths);
    let dates = occurrenceDates(parseRecurrence(lines, zone), times, zone, through);
    if (dates.length > 3 && ruleRng.chance(0.15)) {
      // One to three dates taken out, as a delete of one occurrence writes them.
      const excluded = new Set<string>();
      const wanted = ruleRng.int(1, 3);
      while (excluded.size < wanted) excluded.add(dates[ruleRng.int(0, dates.length - 1)]);
      const values = [...excluded].sort().map((date) => compact(date));
      lines.push(
        zoneName.includes('/')
          ? `EXDATE;TZID=${zoneName}:${values.map((v) => `${v}T${times.startLocal.slice(11).replace(/:/g, '')}`).join(',')}`
          : `EXDATE;VALUE=DATE:${values.join(',')}`,
      );
      dates = occurrenceDates(parseRecurrence(lines, zone), times, zone, through);
    }
    out.events.push([...series, JSON.stringify(lines), id, null, through]);
    out.translations.push(...one.translations);
    out.terms.push(...one.terms);
    out.organizers.push(...one.organizers);

    const termIds = one.terms.map((link) => Number(link[1]));
    const counted = series[2] === 'publish';
    const slugBases = one.translations.map((t) =>
      String(t[3])
        .slice(0, MAX_SLUG_LENGTH - 19)
        .replace(/-+$/, ''),
    );
    dates.forEach((date, position) => {
      const occurrence = id + 1 + position;
      const at = occurrenceTimes(date, times, zone);
      const row: Row = series.slice();
      row[0] = occurrence;
      row[8] = at.startLocal;
      row[9] = at.endLocal;
      row[10] = at.startAt;
      row[11] = at.endAt;
      row[PARENT] = id;
      out.events.push([...row, null, id, date, null]);
      one.translations.forEach((t, i) => {
        const language = LANGUAGES[i];
        out.translations.push([
          translationId(occurrence, language),
          occurrence,
          language,
          `${slugBases[i]}-${date}`,
          t[4],
          t[5],
          t[6],
        ]);
      });
      for (const termId of termIds) {
        out.terms.push([occurrence, termId]);
        if (publishedTerms && counted) publishedTerms[termId]++;
      }
      for (const link of one.organizers) out.organizers.push([occurrence, link[1], link[2]]);
    });
    out.series++;
    out.nextId = id + 1 + dates.length;
  }
  return out;
}
