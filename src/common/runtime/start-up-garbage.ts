import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * One memory-reducing collection once start-up is done: V8's "last resort"
 * full collection, which compacts, releases emptied pages, shrinks the young
 * generation back to its initial size and drops the bytecode of functions
 * that ran only while starting (module bodies, dependency injection, schema
 * set-up). Start-up leaves all of that committed, and an idle service runs
 * no full collection that would give it back (docs/performance.md, Memory).
 * Returns the milliseconds it took.
 */
export function collectStartUpGarbage(): number {
  // The one way to call a collection from JavaScript (Node's v8 documentation):
  // a context created while --expose-gc is set has `gc`.
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as Collect;
  setFlagsFromString('--no-expose-gc');
  const started = performance.now();
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return performance.now() - started;
}
