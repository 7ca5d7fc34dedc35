/*
 * Statistics for benches that alternate variants in many short rounds: each
 * round gives one figure per variant, and a variant's figure divided by the
 * reference's in the same round (a paired ratio) cancels what the machine did
 * during that round. The median of those ratios, with a distribution-free
 * confidence interval, says whether a difference is the variant's or noise.
 */

/** The q-quantile (0–1) of the values, linearly interpolated; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** P(X ≤ k) for X ~ Binomial(n, 1/2). */
function binomialHalfCdf(n: number, k: number): number {
  let term = Math.pow(0.5, n); // P(X = 0)
  let sum = 0;
  for (let i = 0; i <= k && i <= n; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum;
}

/**
 * A confidence interval (at least `level`) for the median from the order
 * statistics, whatever the distribution: [x(k), x(n+1−k)] with the largest k
 * whose binomial tails hold at most 1 − level (20 rounds: the 6th to the 15th
 * of the sorted values). Too few values for the level (fewer than 6 at
 * 95 %): the whole range.
 */
export function medianInterval(values: readonly number[], level = 0.95): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return [NaN, NaN];
  // [sorted[j], sorted[n − 1 − j]] misses the median with probability 2·P(X ≤ j).
  let j = 0;
  while (j + 1 <= n - 2 - j && 2 * binomialHalfCdf(n, j + 1) <= 1 - level) j++;
  return [sorted[j], sorted[n - 1 - j]];
}

/** Met when the whole interval lies within the limit, missed when it lies wholly beyond. */
export type Verdict = 'met' | 'missed' | 'undecided';

/**
 * Whether a variant keeps at least `1 − maxLoss` of the reference's figure,
 * from the interval of the paired ratios (variant / reference).
 */
export function lossVerdict(interval: [number, number], maxLoss: number): Verdict {
  const floor = 1 - maxLoss;
  if (interval[0] >= floor) return 'met';
  if (interval[1] < floor) return 'missed';
  return 'undecided';
}

/** A signed percentage of a ratio: 0.97 → "−3.0 %". */
export function percentOf(ratio: number, digits = 1): string {
  const value = (ratio - 1) * 100;
  const text = Math.abs(value).toFixed(digits);
  return `${value < 0 && Number(text) !== 0 ? '−' : '+'}${text} %`;
}
