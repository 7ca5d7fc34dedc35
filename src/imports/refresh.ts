import { ValidateBy, ValidationOptions } from 'class-validator';

/*
 * A URL import's `refresh` (docs/api.md "Imports"): a whole number and a unit,
 * `m` (minutes), `h` (hours) or `d` (days), from 15m to 30d: `30m`, `1h`, `6h`,
 * `1d`. Read character by character, no regular expression.
 */

const UNIT_SECONDS: Record<string, number> = { m: 60, h: 3600, d: 86_400 };
export const MIN_REFRESH_SECONDS = 15 * 60;
export const MAX_REFRESH_SECONDS = 30 * 86_400;
/** `43200m` is the longest form of the longest refresh. */
const MAX_LENGTH = 6;
export const DEFAULT_REFRESH = '1h';

/** The refresh in seconds, or undefined when it is not one. */
export function parseRefresh(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.length < 2 || value.length > MAX_LENGTH) return undefined;
  const unit = UNIT_SECONDS[value[value.length - 1]];
  if (unit === undefined || value[0] === '0') return undefined;
  let amount = 0;
  for (let i = 0; i < value.length - 1; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    amount = amount * 10 + digit;
  }
  const seconds = amount * unit;
  return seconds >= MIN_REFRESH_SECONDS && seconds <= MAX_REFRESH_SECONDS ? seconds : undefined;
}

/** The refresh as the API shows it: the largest unit that divides it (`90m`, `2h`, `1d`). */
export function refreshText(seconds: number): string {
  if (seconds % UNIT_SECONDS.d === 0) return `${seconds / UNIT_SECONDS.d}d`;
  if (seconds % UNIT_SECONDS.h === 0) return `${seconds / UNIT_SECONDS.h}h`;
  return `${Math.round(seconds / UNIT_SECONDS.m)}m`;
}

export function IsRefresh(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'isRefresh', validator: { validate: (v) => parseRefresh(v) !== undefined } },
    options,
  );
}
