import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

/*
 * V8 sizes the young generation once, when the isolate starts: a
 * `--max-semi-space-size` set from JavaScript is ignored. What it does read
 * at every scavenge is the growth factor, so the cap is kept by switching
 * growth off once the young generation has reached its bound, and on again
 * should a memory-reducing collection shrink it below.
 */

const GROW = '--semi-space-growth-factor=2';
const HOLD = '--semi-space-growth-factor=1';

/** Bytes committed to the young generation (both semi-spaces). */
export function youngGenerationBytes(): number {
  return (
    getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0
  );
}

/**
 * The decision after a collection: grow only while one more doubling stays
 * within `limitBytes`.
 */
export function mayGrow(currentBytes: number, limitBytes: number): boolean {
  return currentBytes * 2 <= limitBytes;
}

/**
 * Keeps the young generation at most `limitBytes` (a power of two times
 * V8's initial size reaches it exactly). On Node 24 (V8 13) the young
 * generation also grows by pages between doublings, so it may pass the bound
 * by up to half of it before the next collection holds it. Returns a
 * function that stops watching (tests).
 */
export function capYoungGeneration(limitBytes: number): () => void {
  // Held from the start: module loading is one synchronous stretch in which
  // the observer cannot run, and V8 would double the space at each scavenge.
  let growing = false;
  setFlagsFromString(HOLD);
  const observer = new PerformanceObserver(() => {
    const grow = mayGrow(youngGenerationBytes(), limitBytes);
    if (grow === growing) return;
    growing = grow;
    setFlagsFromString(grow ? GROW : HOLD);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
