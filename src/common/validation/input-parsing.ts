/**
 * Pure parsers for the loose input forms docs/api.md §1 accepts. Each
 * returns undefined for a value it cannot read, so the caller can report it.
 */

const TRUE_WORDS = new Set(['true', '1', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'no']);

/** true/false, 1/0, "true"/"false", "yes"/"no" (any case). */
export function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

export const MAX_ID = 2 ** 31 - 1;

/** A positive integer up to 2^31−1, from a number or a digits-only string. */
export function parseId(value: unknown): number | undefined {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,10}$/.test(value.trim())
        ? Number(value.trim())
        : NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_ID ? n : undefined;
}

/** An integer from a number or a string of digits with an optional minus sign. */
export function parseInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

/** A finite decimal number from a number or a plain decimal string. */
export function parseDecimal(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d{1,15}(\.\d{1,15})?$/.test(value.trim()))
    return Number(value.trim());
  return undefined;
}

/**
 * A list from a JSON array, repeated query keys (already an array) or a
 * comma-separated string. Items are trimmed strings or numbers; empty items
 * are dropped. Undefined for anything else (objects, booleans, nested arrays).
 */
export function parseList(value: unknown): Array<string | number> | undefined {
  const items: unknown[] = Array.isArray(value)
    ? value.flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]))
    : typeof value === 'string'
      ? value.split(',')
      : typeof value === 'number'
        ? [value]
        : [];
  if (!Array.isArray(value) && typeof value !== 'string' && typeof value !== 'number')
    return undefined;
  const result: Array<string | number> = [];
  for (const item of items) {
    if (typeof item === 'number') result.push(item);
    else if (typeof item === 'string') {
      const trimmed = item.trim();
      if (trimmed !== '') result.push(trimmed);
    } else return undefined;
  }
  return result;
}

/** A list of positive IDs (any of the list forms); undefined if any item is not one. */
export function parseIdList(value: unknown): number[] | undefined {
  const list = parseList(value);
  if (!list) return undefined;
  const ids = list.map(parseId);
  return ids.every((id): id is number => id !== undefined) ? ids : undefined;
}
