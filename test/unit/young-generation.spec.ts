import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ModuleKind, transpileModule } from 'typescript';
import { mayGrow } from '../../src/common/runtime/young-generation';

const MB = 1024 * 1024;
/** The module as plain JavaScript: a fresh node runs it before loading anything else, as main.ts does. */
const MODULE_JS = transpileModule(
  readFileSync(resolve(__dirname, '../../src/common/runtime/young-generation.ts'), 'utf8'),
  { compilerOptions: { module: ModuleKind.CommonJS } },
).outputText;

/**
 * Runs a fresh node that allocates short-lived objects in asynchronous
 * chunks (as requests do) and prints the young generation's committed bytes.
 */
function youngBytesAfterLoad(capMb: number | null): number {
  const script = `
    const { capYoungGeneration, youngGenerationBytes } = ((exports) => {
      ${MODULE_JS}
      return exports;
    })({});
    if (${capMb} !== null) capYoungGeneration(${capMb} * 1024 * 1024);
    let kept = [];
    (async () => {
      for (let round = 0; round < 60; round++) {
        const rows = [];
        for (let i = 0; i < 20000; i++) rows.push({ id: i, title: 'event ' + i });
        kept[round % 3] = rows;
        await new Promise((done) => setImmediate(done));
      }
      process.stdout.write(String(youngGenerationBytes()));
    })();`;
  const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  return Number(out);
}

describe('young generation cap', () => {
  it('grows only while one more doubling stays within the bound', () => {
    expect([1, 2, 4, 8, 16].map((size) => mayGrow(size * MB, 8 * MB))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('keeps the young generation within the bound under a steady allocation load', () => {
    const capped = youngBytesAfterLoad(8);
    expect(capped).toBeGreaterThan(0);
    expect(capped).toBeLessThanOrEqual(8 * MB);
  }, 60_000);

  it('V8 alone grows it beyond that bound under the same load (the reason for the cap)', () => {
    expect(youngBytesAfterLoad(null)).toBeGreaterThan(8 * MB);
  }, 60_000);
});
