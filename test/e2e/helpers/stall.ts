import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Runs `work` and returns its result with how long this process could not
 * run meanwhile (the longest event-loop delay, in ms: garbage collection, a
 * starved CPU). The service under test runs in this process, so its timers
 * are late by that much: a bound on its answer time holds give or take that
 * stall, which the slowest CI machines show (> 1 s).
 */
export async function withStall<T>(work: () => Promise<T>): Promise<[T, number]> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    const result = await work();
    return [result, Math.round(delay.max / 1e6)];
  } finally {
    delay.disable();
  }
}
