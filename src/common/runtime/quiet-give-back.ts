import { constants, PerformanceObserver } from 'node:perf_hooks';
import { collectReducingMemory } from './reducing-collection';
import { youngGenerationBytes } from './young-generation';

/** How often the process is looked at: a load is over once a whole period passed without a young collection. */
const LOOK_EVERY_MS = 30_000;

/** One look at the process. */
export interface QuietLook {
  /** Young collections (scavenges) since the last look. */
  youngCollections: number;
  /** The young generation's committed bytes now, and when the looks began (after start-up). */
  youngBytes: number;
  initialYoungBytes: number;
}

/**
 * Memory is given back when no young collection ran for a whole period (so
 * little was allocated: health probes and polls fill a grown young generation
 * in minutes, a load in milliseconds) and the young generation grew since the
 * looks began.
 */
export function givesBack(look: QuietLook): boolean {
  return look.youngCollections === 0 && look.youngBytes > look.initialYoungBytes;
}

/**
 * Under load the young generation grows to its cap (src/v8-flags.ts), and V8
 * keeps what it grew as long as the process lives: after 3,000 creates the
 * service held 171 MB with the cap at 32 MB, against 117 MB at 8 MB
 * (docs/performance.md). Every `everyMs` this looks whether the load is over
 * (givesBack) and then runs one memory-reducing collection
 * (reducing-collection.ts), which shrinks the young generation to its initial
 * size and releases the old generation's emptied pages. Started after the
 * start-up collection, whose young generation is the initial one. The timer
 * does not hold the process open. Returns a function that stops the looks.
 */
export function giveBackWhenQuiet(
  options: { everyMs?: number; onCollected?: (ms: number) => void } = {},
): () => void {
  const initialYoungBytes = youngGenerationBytes();
  let youngCollections = 0;
  let collecting = false;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) youngCollections++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const look = { youngCollections, youngBytes: youngGenerationBytes(), initialYoungBytes };
    youngCollections = 0;
    if (collecting || !givesBack(look)) return;
    collecting = true;
    collectReducingMemory()
      .then(
        (ms) => options.onCollected?.(ms),
        // Memory is given back at a later look; never a failure of the service.
        () => undefined,
      )
      .finally(() => (collecting = false));
  }, options.everyMs ?? LOOK_EVERY_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    observer.disconnect();
  };
}
