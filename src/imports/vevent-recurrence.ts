import type ICALModule from 'ical.js';
import { IANAZone } from 'luxon';
import { ApiError } from '../common/errors/api-error';
import { parseRecurrence } from '../events/recurrence/recurrence-lines';
import { wallAt } from './import-zones';
import { type DateContext, isTime, readTime, tzidOf } from './vevent-dates';

/*
 * RRULE, RDATE and EXDATE of a series as the `recurrence` lines an event takes
 * (docs/recurrence.md): the rule as ical.js writes it back, and every RDATE
 * and EXDATE as the date it falls on in the event's zone (the service counts
 * them by that date), `VALUE=DATE` lists packed into lines of at most
 * 2,000 characters. The lines are checked with the events' own reader, so a
 * rule the service would refuse skips the VEVENT here, with the reason.
 */

/** Why the lines cannot be taken. */
export class RecurrenceProblem extends Error {}

const MAX_LINE = 2000;
const MAX_LINES = 20;
/** Dates per RDATE/EXDATE kind read from one VEVENT; more cannot fit in 20 lines anyway. */
const MAX_DATES = 4000;

export function recurrenceLines(
  vevent: ICALModule.Component,
  eventZone: string,
  context: DateContext,
): string[] {
  const rules = vevent.getAllProperties('rrule');
  if (rules.length > 1) throw new RecurrenceProblem('more than one RRULE');
  const lines: string[] = [];
  if (rules.length === 1) {
    const rule = String(rules[0].getFirstValue()).toUpperCase();
    if (rule.length + 6 > MAX_LINE) throw new RecurrenceProblem('RRULE is too long');
    lines.push(`RRULE:${rule}`);
  }
  for (const kind of ['RDATE', 'EXDATE'] as const) {
    lines.push(...dateLines(kind, datesOf(vevent, kind, eventZone, context)));
  }
  if (lines.length === 0) return lines;
  if (lines.length > MAX_LINES) throw new RecurrenceProblem('too many RDATE/EXDATE dates');
  check(lines, eventZone);
  return lines;
}

/** The dates (`YYYYMMDD` in the event's zone) of every value of one kind, sorted, once each. */
function datesOf(
  vevent: ICALModule.Component,
  kind: 'RDATE' | 'EXDATE',
  eventZone: string,
  context: DateContext,
): string[] {
  const dates = new Set<string>();
  for (const property of vevent.getAllProperties(kind.toLowerCase())) {
    for (const raw of property.getValues() as unknown[]) {
      // An RDATE period counts by its start.
      const value = isTime(raw) ? raw : (raw as ICALModule.Period | null)?.start;
      if (!isTime(value)) throw new RecurrenceProblem(`${kind} holds a value that is not a date`);
      const read = readTime(value, tzidOf(property), context, kind);
      const date = read.isDate ? read.local : wallAt(read.seconds, eventZone);
      dates.add(date.slice(0, 10).replaceAll('-', ''));
      if (dates.size > MAX_DATES) throw new RecurrenceProblem(`too many ${kind} dates`);
    }
  }
  return [...dates].sort();
}

/** `KIND;VALUE=DATE:d1,d2,…` lines of at most MAX_LINE characters. */
function dateLines(kind: string, dates: string[]): string[] {
  const head = `${kind};VALUE=DATE:`;
  const perLine = Math.floor((MAX_LINE - head.length + 1) / 9);
  const lines: string[] = [];
  for (let from = 0; from < dates.length; from += perLine) {
    lines.push(head + dates.slice(from, from + perLine).join(','));
  }
  return lines;
}

/** The lines as the events' reader takes them, or the reason it gives. */
function check(lines: string[], eventZone: string): void {
  try {
    parseRecurrence(lines, IANAZone.create(eventZone));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const reason = Object.values(error.details.invalid ?? {})[0];
    const args = reason?.args ?? {};
    throw new RecurrenceProblem(
      `line ${String(args.line ?? '?')}: ${reason?.reason ?? 'invalid'} (${String(args.part ?? '')})`,
    );
  }
}
