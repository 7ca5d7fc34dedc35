const TICK_MS = 10;
/** A tick later than this counts as a stall; below it is timer jitter. */
const JITTER_MS = 20;

/**
 * Runs `work` and returns its result with how long this process could not
 * run meanwhile, in ms: the sum of every stall of the event loop (garbage
 * collection, a starved CPU), since several short stalls delay an answer as
 * much as one long one. The service under test runs in this process, so its
 * timers are late by that much: a bound on its answer time holds give or take
 * that stall, which the slowest CI machines show (> 1 s). Third: the longest
 * single stall, the event-loop delay one piece of synchronous work caused.
 */
export async function withStall<T>(work: () => Promise<T>): Promise<[T, number, number]> {
  let last = performance.now();
  let stalledMs = 0;
  let longestMs = 0;
  const tick = () => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late > JITTER_MS) stalledMs += late;
    longestMs = Math.max(longestMs, late);
    last = now;
  };
  const timer = setInterval(tick, TICK_MS);
  try {
    const result = await work();
    tick();
    return [result, Math.round(stalledMs), Math.round(longestMs)];
  } finally {
    clearInterval(timer);
  }
}

/**
 * Times every call of a promise-returning method until restored: the longest
 * one, in ms. Another process (the database) is slow on a loaded machine
 * while this one idles, which no stall shows: a bound on work that waits for
 * such calls allows for how long they took.
 */
export function timeCalls<T extends object, K extends keyof T & string>(
  object: T,
  method: K,
): { longestMs: () => number; restore: () => void } {
  let longestMs = 0;
  const real = object[method] as (...args: unknown[]) => Promise<unknown>;
  const spy = jest
    .spyOn(object as Record<string, (...args: unknown[]) => Promise<unknown>>, method)
    .mockImplementation(async function (this: unknown, ...args: unknown[]) {
      const started = performance.now();
      try {
        return await real.apply(this, args);
      } finally {
        longestMs = Math.max(longestMs, performance.now() - started);
      }
    });
  return { longestMs: () => Math.round(longestMs), restore: () => spy.mockRestore() };
}
