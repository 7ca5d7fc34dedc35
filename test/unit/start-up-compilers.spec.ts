import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ModuleKind, transpileModule } from 'typescript';
import { enabledByDefault } from '../../src/common/runtime/start-up-compilers';

const MODULE_JS = transpileModule(
  readFileSync(resolve(__dirname, '../../src/common/runtime/start-up-compilers.ts'), 'utf8'),
  { compilerOptions: { module: ModuleKind.CommonJS } },
).outputText;

/** V8's optimization status bits (%GetOptimizationStatus): optimized by Maglev or TurboFan. */
const OPTIMIZED = 1 << 4;

/** A fresh node: a hot function while the compilers are held, and another after they are released. */
function hotFunctionsInFreshNode(): { held: number; released: number } {
  const script = `
    const { holdOptimizingCompilers, releaseOptimizingCompilers } =
      ((exports) => { ${MODULE_JS}; return exports; })({});
    const hot = (n) => { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; };
    holdOptimizingCompilers([]);
    const during = (n) => hot(n) + 1;
    for (let i = 0; i < 50000; i++) during(100);
    const held = %GetOptimizationStatus(during);
    releaseOptimizingCompilers();
    const after = (n) => hot(n) + 2;
    for (let i = 0; i < 200000; i++) after(100);
    process.stdout.write(JSON.stringify({ held, released: %GetOptimizationStatus(after) }));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--allow-natives-syntax', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    }),
  ) as { held: number; released: number };
}

describe('optimizing compilers held during start-up', () => {
  it('optimizes nothing while held, and optimizes hot code again once released', () => {
    const { held, released } = hotFunctionsInFreshNode();
    expect(held & OPTIMIZED).toBe(0);
    expect(released & OPTIMIZED).toBe(OPTIMIZED);
  });

  it('leaves a compiler off that the command line switched off, and on that it switched on', () => {
    expect(enabledByDefault('turbofan', ['--no-turbofan'])).toBe(false);
    expect(enabledByDefault('turbofan', ['--no-opt'])).toBe(false);
    expect(enabledByDefault('turbofan', ['--no-opt', '--turbofan'])).toBe(true);
    expect(enabledByDefault('turbofan', [])).toBe(true);
    expect(enabledByDefault('sparkplug', ['--no_sparkplug'])).toBe(false);
    expect(enabledByDefault('maglev', ['--maglev'])).toBe(true);
    expect(enabledByDefault('maglev', ['--no-maglev'])).toBe(false);
    // Otherwise Maglev is on where the build enables it (Node 22 on).
    const variables = process.config.variables as unknown as Record<string, unknown>;
    expect(enabledByDefault('maglev', [])).toBe(variables.v8_enable_maglev === 1);
  });
});
