/*
 * Warm-up until a server's CPU per request settles. A fixed few seconds is
 * not enough for the service: V8 compiles its hot paths over the first
 * 18–36 s of load (creates at 10 connections: CPU per create 6.8 → 4.7 →
 * 4.0 → 3.6 → 3.3 ms in 5 s slices, then flat), the small reference servers
 * in 12–24 s. Measured after a fixed 2 s warm-up, the first rounds timed the
 * service's compiler, not its steady state.
 */
import { aggregate, type RunResult } from './load';

export interface WarmUpOptions {
  /** Seconds of load at least (the bench's --warmup). */
  minSeconds: number;
  /** Seconds of load at most, settled or not (never less than minSeconds). */
  maxSeconds: number;
  /** Seconds per slice; the last SETTLED_SLICES are compared. */
  sliceSeconds: number;
  /** Largest spread of CPU per request over the last SETTLED_SLICES (relative to their lowest) that counts as settled. */
  tolerance: number;
}

export const DEFAULT_WARM_UP: Omit<WarmUpOptions, 'minSeconds'> = {
  maxSeconds: 60,
  sliceSeconds: 3,
  tolerance: 0.05,
};

export interface WarmUp {
  seconds: number;
  settled: boolean;
  /** CPU ms per request of each slice, in order. */
  cpuMsPerRequest: number[];
}

export const SETTLED_SLICES = 3;

/**
 * True when the last `SETTLED_SLICES` costs are all measured and within
 * `tolerance` of their lowest (relative). Three, not two: a JIT that is
 * still compiling lowers the cost by a few per cent a slice, so two slices
 * in a row could agree before it was done.
 */
export function isSettled(costs: readonly number[], tolerance: number): boolean {
  if (costs.length < SETTLED_SLICES) return false;
  const last = costs.slice(-SETTLED_SLICES);
  if (!last.every((cost) => Number.isFinite(cost) && cost > 0)) return false;
  return Math.max(...last) <= Math.min(...last) * (1 + tolerance);
}

/**
 * Runs `load` in slices until the last three agree within the tolerance
 * and at least `minSeconds` passed, or `maxSeconds` passed (the number of
 * slices is bounded by it). A slice with errors ends the warm-up: the
 * measured runs report them.
 */
export async function warmUp(
  load: (seconds: number) => Promise<RunResult>,
  options: WarmUpOptions,
): Promise<WarmUp> {
  const maxSeconds = Math.max(options.minSeconds, options.maxSeconds);
  const slice = Math.min(options.sliceSeconds, maxSeconds);
  const slices = Math.max(1, Math.ceil(maxSeconds / slice));
  const costs: number[] = [];
  let seconds = 0;
  for (let i = 0; i < slices; i++) {
    const run = await load(slice);
    seconds += slice;
    costs.push(aggregate([run]).cpuMsPerRequest);
    if (run.errors + run.non2xx > 0) return { seconds, settled: false, cpuMsPerRequest: costs };
    if (isSettled(costs, options.tolerance) && seconds >= options.minSeconds)
      return { seconds, settled: true, cpuMsPerRequest: costs };
  }
  return { seconds, settled: false, cpuMsPerRequest: costs };
}

/** One line for the log: `create ours: 24 s, settled, CPU ms/request 6.80 → 3.31`. */
export function describeWarmUp(label: string, result: WarmUp): string {
  const first = result.cpuMsPerRequest[0];
  const last = result.cpuMsPerRequest.at(-1) as number;
  return (
    `${label}: ${result.seconds} s, ${result.settled ? 'settled' : 'not settled'}, ` +
    `CPU ms/request ${first.toFixed(2)} → ${last.toFixed(2)}`
  );
}
