/**
 * Pure helpers of bench:obs --instructions: the total instruction count of a
 * callgrind dump, and the verdict on a variant's instructions per request.
 */

/**
 * Total Ir of a callgrind dump: its `totals:` line (or `summary:` in older
 * dumps), whose first number is Ir (events: Ir first by default).
 */
export function callgrindTotal(dump: string): number {
  const lines = dump.split('\n');
  const events = lines.find((line) => line.startsWith('events:'));
  const names = events ? events.slice('events:'.length).trim().split(/\s+/) : ['Ir'];
  const at = names.indexOf('Ir');
  if (at < 0) throw new Error('callgrind dump: no Ir event');
  for (const key of ['totals:', 'summary:']) {
    const line = lines.find((candidate) => candidate.startsWith(key));
    if (!line) continue;
    const value = Number(line.slice(key.length).trim().split(/\s+/)[at]);
    if (Number.isFinite(value)) return value;
  }
  throw new Error('callgrind dump: no totals or summary line');
}

export type Verdict = 'met' | 'missed' | 'undecided';

/**
 * Whether a variant is within a loss target by instructions per request.
 * `reference` holds every fresh process of the unchanged service (off and
 * off-again), so their spread is what no difference looks like. Met: even
 * the variant's costliest process is ≤ the cheapest reference × (1 + target).
 * Missed: even its cheapest is > the costliest reference × (1 + target).
 * Otherwise the reference's own spread blurs it: undecided.
 */
export function instructionVerdict(
  variant: number[],
  reference: number[],
  target: number,
): Verdict {
  if (variant.length === 0 || reference.length === 0) throw new Error('no figures');
  const allowed = 1 + target;
  if (Math.max(...variant) <= Math.min(...reference) * allowed) return 'met';
  if (Math.min(...variant) > Math.max(...reference) * allowed) return 'missed';
  return 'undecided';
}

/** Relative spread of a set of figures: (max − min) / min. */
export function relativeSpread(values: number[]): number {
  return (Math.max(...values) - Math.min(...values)) / Math.min(...values);
}
