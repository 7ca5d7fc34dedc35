/*
 * An event's cost (docs/api.md §6): stored as the strings the client sent,
 * parsed into `cost_details` and rendered as `cost` on every read, so a
 * change of the rules never needs a data migration.
 */

export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: 'prefix' | 'postfix' | '';
  values: number[];
}

const MAX_ITEMS = 100;
const MAX_LENGTH = 255;

/** ISO codes of the symbols that name one currency. */
const SYMBOL_CODES: Record<string, string> = { '€': 'EUR', $: 'USD', '£': 'GBP' };

const AMOUNT = /\d+(?:[.,]\d+)*/g;
/** A currency sign (Unicode category Sc) or a three-letter code such as EUR or CHF. */
const SYMBOL = /\p{Sc}|(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])/u;
/** The words for free in both languages: they stand for 0. */
const FREE_WORD = /(?<![\p{L}])(?:free|gratis)(?![\p{L}])/iu;

/**
 * The strings to store for a `cost` input: a string, a number or an array of
 * them; `""`, null and [] clear it (no strings). Undefined when the input is
 * not one of those forms or holds a text without any amount or word for free.
 */
export function costStrings(value: unknown): string[] | undefined {
  if (value === null || value === '') return [];
  const items = Array.isArray(value) ? value : [value];
  if (items.length > MAX_ITEMS) return undefined;
  const strings: string[] = [];
  for (const item of items) {
    // A number is written with at most two decimals, so "1.234" is never read as thousands.
    const text =
      typeof item === 'number' && Number.isFinite(item) && item >= 0
        ? String(Math.round(item * 100) / 100)
        : typeof item === 'string'
          ? item.trim()
          : undefined;
    if (text === undefined || text.length > MAX_LENGTH) return undefined;
    if (text === '') continue;
    if (!FREE_WORD.test(text) && text.search(AMOUNT) < 0) return undefined;
    strings.push(text);
  }
  return strings;
}

/** `cost_details` of the stored strings: the first currency sign found, every amount ascending. */
export function costDetails(strings: readonly string[]): CostDetails {
  const values = new Set<number>();
  let symbol: { text: string; position: 'prefix' | 'postfix' } | undefined;
  for (const text of strings) {
    if (FREE_WORD.test(text)) values.add(0);
    for (const match of text.matchAll(AMOUNT)) values.add(parseAmount(match[0]));
    symbol ??= findSymbol(text);
  }
  return {
    currency_symbol: symbol?.text ?? '',
    currency_code: symbol ? (SYMBOL_CODES[symbol.text] ?? codeOf(symbol.text)) : '',
    currency_position: symbol?.position ?? '',
    values: [...values].sort((a, b) => a - b),
  };
}

/**
 * `cost`: the one value, or the lowest and highest joined by an en dash;
 * 0 as the word for free, the symbol on its side, cents with two decimals.
 */
export function formatCost(details: CostDetails, freeWord: string): string {
  const { values } = details;
  if (values.length === 0) return '';
  const show = (value: number) => {
    if (value === 0) return freeWord;
    const amount = Number.isInteger(value) ? String(value) : value.toFixed(2);
    const symbol = details.currency_symbol;
    if (!symbol) return amount;
    // A letter code reads better apart from the number: "CHF 10", "10 CHF".
    const gap = /^[A-Z]/.test(symbol) ? ' ' : '';
    return details.currency_position === 'prefix'
      ? `${symbol}${gap}${amount}`
      : `${amount}${gap}${symbol}`;
  };
  const lowest = values[0];
  const highest = values[values.length - 1];
  return lowest === highest ? show(lowest) : `${show(lowest)} – ${show(highest)}`;
}

/**
 * One amount. A single separator followed by other than three digits is a
 * decimal one ("5,50" = 5.5, "6.5"); with both kinds the last is
 * ("1.000,50", "1,000.50"); otherwise they group thousands ("1.000", "1,000").
 */
export function parseAmount(text: string): number {
  const separators = text.match(/[.,]/g) ?? [];
  const last = Math.max(text.lastIndexOf('.'), text.lastIndexOf(','));
  const decimal =
    separators.length > 0 &&
    (new Set(separators).size > 1 || (separators.length === 1 && text.length - last - 1 !== 3));
  const whole = (decimal ? text.slice(0, last) : text).replace(/[.,]/g, '');
  const fraction = decimal ? text.slice(last + 1) : '0';
  return Math.round(Number(`${whole}.${fraction}`) * 100) / 100;
}

function findSymbol(text: string): { text: string; position: 'prefix' | 'postfix' } | undefined {
  const match = SYMBOL.exec(text);
  if (!match) return undefined;
  const after = text.slice(match.index + match[0].length);
  return { text: match[0], position: /^\s*\d/.test(after) ? 'prefix' : 'postfix' };
}

function codeOf(symbol: string): string {
  return /^[A-Z]{3}$/.test(symbol) ? symbol : '';
}

/** The stored form: a JSON array of the strings as sent, or NULL for no cost. */
export function costToStorage(strings: readonly string[]): string | null {
  return strings.length > 0 ? JSON.stringify(strings) : null;
}

export function costFromStorage(stored: string | null): string[] {
  if (!stored) return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}
