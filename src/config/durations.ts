const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The longest single delay accepted: a week. */
const MAX_DELAY_MS = 7 * 24 * 3_600_000;

/** At most this many delays (so at most one more attempt than that). */
export const MAX_RETRY_DELAYS = 20;

/**
 * A comma list of delays such as `5s,1m,10m,1h,6h,24h` (units ms, s, m, h), in
 * milliseconds; undefined when any entry is not such a delay.
 */
export function parseDurationList(value: string): number[] | undefined {
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.length === 0 || entries.length > MAX_RETRY_DELAYS) return undefined;
  const delays: number[] = [];
  for (const entry of entries) {
    const match = /^(\d{1,9})(ms|s|m|h)$/.exec(entry);
    if (!match) return undefined;
    const ms = Number(match[1]) * UNITS[match[2]];
    if (ms > MAX_DELAY_MS) return undefined;
    delays.push(ms);
  }
  return delays;
}
