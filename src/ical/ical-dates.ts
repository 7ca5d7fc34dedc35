import { utcWire } from '../common/time/dates';
import { dateTimeValue } from './ical-text';

/*
 * iCalendar DATE and DATE-TIME digits from Unix seconds with integer
 * arithmetic: a feed writes six times per event, and going through `Date`,
 * an ISO string and slices of it was a tenth of the feed's CPU. The digits
 * are those of `dateTimeValue(utcWire(seconds))`, outside four-digit years
 * too (those take that path).
 */

/** Seconds of 0001-01-01 00:00:00 and 9999-12-31 23:59:59 UTC: the years written with four digits. */
export const MIN_DIGIT_SECONDS = -62135596800;
export const MAX_DIGIT_SECONDS = 253402300799;

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

/** `YYYYMMDD` per day since 1970 (a feed meets a few thousand days). */
const days = new Map<number, string>();
const MAX_DAYS_KEPT = 20_000;

/** `YYYYMMDDTHHMMSS` of Unix seconds read as a UTC wall clock. */
export function dateTimeDigits(seconds: number): string {
  const whole = Math.floor(seconds);
  if (!(whole >= MIN_DIGIT_SECONDS && whole <= MAX_DIGIT_SECONDS)) {
    return dateTimeValue(utcWire(seconds));
  }
  const day = Math.floor(whole / 86_400);
  const time = whole - day * 86_400;
  const minutes = Math.floor(time / 60);
  return `${dayDigits(day)}T${TWO_DIGITS[Math.floor(minutes / 60)]}${TWO_DIGITS[minutes % 60]}${TWO_DIGITS[time % 60]}`;
}

/** `YYYYMMDD` of a day number (days since 1970-01-01), within four-digit years. */
export function dayDigits(day: number): string {
  let digits = days.get(day);
  if (digits === undefined) {
    digits = civilDigits(day);
    if (days.size >= MAX_DAYS_KEPT) days.clear();
    days.set(day, digits);
  }
  return digits;
}

/** The proleptic Gregorian date of a day number (H. Hinnant's days_from_civil, inverted). */
function civilDigits(day: number): string {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153); // March = 0
  const dayOfMonth = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}${TWO_DIGITS[month]}${TWO_DIGITS[dayOfMonth]}`;
}
