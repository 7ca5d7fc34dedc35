import { Random } from '../prng';
import { SECONDS_PER_DAY } from '../time';

export const STATUSES = [
  ['publish', 90],
  ['draft', 4],
  ['pending', 2],
  ['private', 2],
  ['trash', 2],
] as const;

/** Authors 1–20, a few of them writing most records. */
export function authorId(rng: Random): number {
  return rng.skewed(20, 1.5) + 1;
}

/**
 * Publication time of record `id` of `count`: IDs grow with time over the ten
 * years before `now` (with some jitter), as records created over the years would.
 */
export function publishedAt(rng: Random, id: number, count: number, now: number): number {
  const span = 10 * 365 * SECONDS_PER_DAY;
  const base = now - span + Math.floor(((id - 0.5) / Math.max(count, 1)) * span);
  const jitter = rng.int(-7 * SECONDS_PER_DAY, 7 * SECONDS_PER_DAY);
  return Math.min(now - 60, Math.max(now - span, base + jitter));
}

/** A modification some time after publication, never after `now`. */
export function modifiedAt(rng: Random, published: number, now: number): number {
  return rng.chance(0.4)
    ? published
    : Math.min(now - 1, published + rng.int(60, 90 * SECONDS_PER_DAY));
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Digits only, `length` of them. */
export function digits(rng: Random, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String(rng.int(0, 9));
  return out;
}
