import { entityTag } from './entity-tags';

/**
 * A record's ETag (docs/api.md §11): the strong tag of the bytes of the
 * answer that shows it. Every path that tags a record calls this one
 * function, so their tags agree byte for byte: a GET hashes the bytes it
 * sends (JSON, or a single event's iCalendar); a write, the If-Match check
 * and an idempotent answer rebuilt after a lost store hash the record a GET
 * would send now. `answer` is those bytes, or the record itself, whose bytes
 * are what `res.json` sends for it (JSON.stringify, no spacing).
 */
export function recordTag(answer: unknown): string {
  const bytes = typeof answer === 'string' || Buffer.isBuffer(answer);
  return entityTag(bytes ? answer : JSON.stringify(answer));
}
