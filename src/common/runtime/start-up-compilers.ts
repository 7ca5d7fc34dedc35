import { setFlagsFromString } from 'node:v8';

/*
 * V8's compilers beyond the interpreter (TurboFan; Maglev where the build
 * enables it, Node 22 on; the Sparkplug baseline) held off while the service
 * starts: start-up runs its code once (module bodies, dependency injection,
 * entity metadata, migrations), yet enough of it gets hot to be compiled,
 * and compiling touches the compilers' own code in the `node` binary and
 * leaves compiled code and its metadata behind: 11 MB of the idle RSS on
 * Node 24 and 7 MB on Node 20 (docs/performance.md, Memory). Released before
 * the first request, so requests are compiled as before.
 */

type Compiler = 'turbofan' | 'maglev' | 'sparkplug';

/** What the command line or NODE_OPTIONS said of the compilers, and whether V8 runs without a JIT. */
function given(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
}

/** Whether `compiler` is on when nothing changes it: as given on the command line, else the build's default. */
export function enabledByDefault(compiler: Compiler, flags: string[] = given()): boolean {
  const names = compiler === 'turbofan' ? ['turbofan', 'opt'] : [compiler];
  for (const flag of [...flags].reverse()) {
    const name = flag.replace(/_/g, '-');
    if (names.some((n) => name === `--no-${n}`)) return false;
    if (names.some((n) => name === `--${n}`)) return true;
  }
  if (compiler !== 'maglev') return true;
  const variables = process.config.variables as unknown as Record<string, unknown>;
  return variables.v8_enable_maglev === 1;
}

let held: Compiler[] = [];

/** Switches off the compilers that are on (none under --jitless). */
export function holdOptimizingCompilers(flags: string[] = given()): void {
  if (flags.includes('--jitless')) return;
  held = (['turbofan', 'maglev', 'sparkplug'] as const).filter((compiler) => enabledByDefault(compiler, flags));
  for (const compiler of held) setFlagsFromString(`--no-${compiler}`);
}

/** Switches back on what holdOptimizingCompilers switched off. */
export function releaseOptimizingCompilers(): void {
  for (const compiler of held) setFlagsFromString(`--${compiler}`);
  held = [];
}
