import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ModuleKind, transpileModule } from 'typescript';

const MB = 1024 * 1024;
const MODULE_JS = transpileModule(
  readFileSync(resolve(__dirname, '../../src/common/runtime/start-up-garbage.ts'), 'utf8'),
  { compilerOptions: { module: ModuleKind.CommonJS } },
).outputText;

interface Outcome {
  youngBefore: number;
  youngAfter: number;
  oldBefore: number;
  oldAfter: number;
  ms: number;
  gcLeftExposed: boolean;
}

/** A fresh node that allocates as a start-up does (much garbage, some kept), then collects. */
function collectInFreshNode(): Outcome {
  const script = `
    const { collectStartUpGarbage } = ((exports) => { ${MODULE_JS}; return exports; })({});
    const { getHeapSpaceStatistics } = require('node:v8');
    const size = (name) => getHeapSpaceStatistics().find((s) => s.space_name === name).space_size;
    let kept = [];
    for (let round = 0; round < 200; round++) {
      const rows = Array.from({ length: 5000 }, (_, i) => ({ id: i, title: 'event ' + i }));
      if (round % 10 === 0) kept.push(rows);
    }
    kept = kept.slice(0, 2);
    const youngBefore = size('new_space');
    const oldBefore = size('old_space');
    collectStartUpGarbage().then((ms) => process.stdout.write(JSON.stringify({
      youngBefore, youngAfter: size('new_space'), oldBefore, oldAfter: size('old_space'), ms,
      gcLeftExposed: typeof globalThis.gc !== 'undefined',
    })));`;
  return JSON.parse(
    execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 }),
  ) as Outcome;
}

describe('start-up garbage collection', () => {
  const outcome = collectInFreshNode();

  it('runs one collection, leaves no gc function exposed, and the process ends (no session left open)', () => {
    expect(outcome.ms).toBeGreaterThan(0);
    expect(outcome.gcLeftExposed).toBe(false);
  });

  it('gives back the grown young generation and the emptied old pages', () => {
    expect(outcome.youngBefore).toBeGreaterThan(4 * MB);
    expect(outcome.youngAfter).toBeLessThanOrEqual(1 * MB);
    expect(outcome.oldAfter).toBeLessThan(outcome.oldBefore);
  });
});
