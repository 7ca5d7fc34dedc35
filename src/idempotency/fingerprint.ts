import { createHash } from 'node:crypto';

/** 1–255 visible ASCII characters (docs/api.md §13). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function isValidIdempotencyKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/**
 * JSON with object keys sorted at every depth and no whitespace: two bodies
 * that are equal after parsing give the same text, whatever their key order.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function sha256(...parts: string[]): string {
  const hash = createHash('sha256');
  // A separator no part contains (keys are visible ASCII, paths have no NUL).
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}
