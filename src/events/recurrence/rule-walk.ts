import { Frequency, RRule } from 'rrule';
import { ApiError } from '../../common/errors/api-error';

/*
 * A bounded walk over a rule's dates. `rrule` walks period after period
 * (day, week, month or year) until a date matches, and when none ever does
 * (FREQ=DAILY;INTERVAL=7;BYDAY=TU from a Monday, BYSETPOS past the month's
 * dates) it walks on to the year 9999, seconds of blocked event loop. It has
 * no hook per period, so the walk counts them through the rule's options:
 * rrule reads `interval` once when it starts and twice in every period.
 */

/** Periods one walk may take per frequency; each costs about 0.1 s of CPU at its cap. */
export const MAX_RULE_STEPS: Readonly<Record<number, number>> = {
  [Frequency.DAILY]: 20_000,
  [Frequency.WEEKLY]: 10_000,
  [Frequency.MONTHLY]: 5_000,
  [Frequency.YEARLY]: 800,
};

const DAY_MS = 86_400_000;

/** Ends the walk from inside rrule's loop. */
const STOP = Symbol('rule walk budget spent');

/**
 * Periods from the rule's DTSTART to the one holding `through` (a floating
 * Date), plus slack for the first period's alignment (WKST): once this many
 * are walked, every date up to `through` has been seen.
 */
function periodsThrough(rule: RRule, through: Date): number {
  const { dtstart, freq, interval } = rule.options;
  const from = dtstart.getTime();
  if (through.getTime() <= from) return 2;
  const days = (through.getTime() - from) / DAY_MS;
  const months =
    (through.getUTCFullYear() - dtstart.getUTCFullYear()) * 12 +
    through.getUTCMonth() -
    dtstart.getUTCMonth();
  const units =
    freq === Frequency.DAILY
      ? days
      : freq === Frequency.WEEKLY
        ? days / 7 + 1
        : freq === Frequency.MONTHLY
          ? months
          : Math.floor(months / 12);
  return Math.floor(units / interval) + 2;
}

/**
 * Calls `visit` with the rule's dates in order while it returns true, and
 * stops at the latest once the walk has passed `through`. A rule that needs
 * more periods than MAX_RULE_STEPS to get there → 400 naming `recurrence`.
 * Returns the number of periods walked.
 */
export function walkRule(rule: RRule, through: Date, visit: (date: Date) => boolean): number {
  const options = rule.options;
  const needed = periodsThrough(rule, through);
  const max = MAX_RULE_STEPS[options.freq];
  const budget = Math.min(needed, max);
  let reads = 0;
  // The other options are read through the prototype: a Proxy would slow every one of them.
  const counted = Object.create(options) as typeof options;
  Object.defineProperty(counted, 'interval', {
    get() {
      if (++reads > 2 * budget + 1) throw STOP;
      return options.interval;
    },
  });
  rule.options = counted;
  try {
    rule.all((date) => visit(date));
  } catch (error) {
    if (error !== STOP) throw error;
    if (budget < needed) throw ApiError.invalid('recurrence', 'recurrenceTooLong', { max });
  } finally {
    rule.options = options;
  }
  return Math.max(0, Math.floor((reads - 1) / 2));
}
