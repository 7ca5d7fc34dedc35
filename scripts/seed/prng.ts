/*
 * A small seeded pseudo-random generator (mulberry32) and the draws the
 * generators need. Every record gets its own stream, derived from the run's
 * seed, its table and its ID, so a record's content never depends on batch
 * sizes or on how many other records are generated.
 */

/** mulberry32: 32-bit state, period 2^32, good enough for test data. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit mix of integers (murmur3's finaliser over each part). */
export function mixSeed(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    let k = Math.imul(part | 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Table salts for mixSeed: one stream per (table, record). */
export const STREAM = {
  term: 1,
  venue: 2,
  organizer: 3,
  event: 4,
  series: 5,
  seriesRule: 6,
} as const;

export class Random {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** The stream of one record. */
  static of(seed: number, stream: number, id: number): Random {
    return new Random(mixSeed(seed, stream, id));
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next();
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /**
   * An index in [0, n) skewed towards 0 (u^power): with power 2 the first
   * tenth of the items gets about a third of the draws, as popular
   * categories, venues and organizers do.
   */
  skewed(n: number, power = 2): number {
    return Math.min(n - 1, Math.floor(Math.pow(this.next(), power) * n));
  }

  /** `count` distinct skewed indexes in [0, n) (fewer when n < count), in draw order. */
  distinctSkewed(n: number, count: number, power = 2): number[] {
    const wanted = Math.min(n, count);
    const picked: number[] = [];
    for (let tries = 0; picked.length < wanted; tries++) {
      // After a run of repeats (tiny n, strong skew) fall back to a uniform draw.
      const index = tries < 32 ? this.skewed(n, power) : this.int(0, n - 1);
      if (!picked.includes(index)) picked.push(index);
    }
    return picked;
  }

  /** One of `options` by weight: [[value, weight], …]. */
  weighted<T>(options: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const [, weight] of options) total += weight;
    let roll = this.next() * total;
    for (const [value, weight] of options) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return options[options.length - 1][0];
  }
}
