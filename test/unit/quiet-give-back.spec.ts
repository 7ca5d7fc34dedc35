import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { givesBack } from '../../src/common/runtime/quiet-give-back';

const MB = 1024 * 1024;
const RUNTIME = resolve(__dirname, '../../src/common/runtime');

interface Outcome {
  initial: number;
  afterLoad: number;
  collectedDuringLoad: number;
  afterQuiet: number;
  collectedWhenQuiet: number;
}

/**
 * A fresh node with the service's young generation cap that allocates as
 * requests do for 2 s, enough for several young collections in every look's
 * period even on a starved machine (looks every 300 ms), then turns quiet.
 */
function loadThenQuiet(): Outcome {
  const script = `
    const { capYoungGeneration, youngGenerationBytes } = require(${JSON.stringify(`${RUNTIME}/young-generation.ts`)});
    const { giveBackWhenQuiet } = require(${JSON.stringify(`${RUNTIME}/quiet-give-back.ts`)});
    capYoungGeneration(32 * 1024 * 1024);
    const initial = youngGenerationBytes();
    let collected = 0;
    const stop = giveBackWhenQuiet({ everyMs: 300, onCollected: () => collected++ });
    const pause = (ms) => new Promise((done) => setTimeout(done, ms));
    let kept = [];
    (async () => {
      const loadUntil = Date.now() + 2000;
      for (let round = 0; Date.now() < loadUntil; round++) {
        const rows = [];
        for (let i = 0; i < 50000; i++) rows.push({ id: i, title: 'event ' + i });
        kept[round % 3] = rows;
        await new Promise((done) => setImmediate(done));
      }
      const afterLoad = youngGenerationBytes();
      const collectedDuringLoad = collected;
      kept = [];
      await pause(1500);
      stop();
      process.stdout.write(JSON.stringify({
        initial, afterLoad, collectedDuringLoad, afterQuiet: youngGenerationBytes(), collectedWhenQuiet: collected,
      }));
    })();`;
  const out = execFileSync(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-e', script],
    { encoding: 'utf8', timeout: 60_000, cwd: resolve(__dirname, '../..') },
  );
  return JSON.parse(out) as Outcome;
}

describe('memory given back when quiet', () => {
  it('gives back only after a whole period without a young collection, once the young generation grew', () => {
    const look = { youngCollections: 0, youngBytes: 16 * MB, initialYoungBytes: 1 * MB };
    expect(givesBack(look)).toBe(true);
    expect(givesBack({ ...look, youngCollections: 1 })).toBe(false);
    expect(givesBack({ ...look, youngBytes: 1 * MB })).toBe(false);
  });

  it('collects not during a load, then once when it is over, and the young generation shrinks back', () => {
    const outcome = loadThenQuiet();
    expect(outcome.afterLoad).toBeGreaterThan(outcome.initial);
    expect(outcome.collectedDuringLoad).toBe(0);
    expect(outcome.collectedWhenQuiet).toBe(1);
    expect(outcome.afterQuiet).toBeLessThanOrEqual(outcome.initial);
  }, 60_000);
});
