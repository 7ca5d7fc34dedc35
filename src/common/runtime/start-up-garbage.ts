import { Session } from 'node:inspector';

/**
 * One memory-reducing collection once start-up is done: V8's "last resort"
 * full collection, which compacts, releases emptied pages, shrinks the young
 * generation back to its initial size and drops the bytecode of functions
 * that ran only while starting (module bodies, dependency injection, schema
 * set-up). Start-up leaves all of that committed, and an idle service runs
 * no full collection that would give it back (docs/performance.md, Memory).
 * Asked of the process's own inspector (`HeapProfiler.collectGarbage`, V8's
 * low-memory notification): the one way to that collection from JavaScript
 * on Node 20 as on 24 (the `gc` of --expose-gc runs a plain full collection
 * on Node 20, which releases nothing). Resolves with the milliseconds it took.
 */
export function collectStartUpGarbage(): Promise<number> {
  const started = performance.now();
  const session = new Session();
  session.connect();
  return new Promise((resolve, reject) => {
    session.post('HeapProfiler.collectGarbage', (error) => {
      // Not from inside the inspector's own callback: that leaves the session open (Node 20).
      setImmediate(() => session.disconnect());
      if (error) reject(error);
      else resolve(performance.now() - started);
    });
  });
}
