/*
 * Preloaded (`node -r`) into a service started by a test: writes one stderr
 * line `intl-built <kind> <caller>` for each Intl formatter or collator the
 * service builds, as building one reads megabytes of ICU data
 * (docs/performance.md, Memory). The TypeScript compiler that ts-node runs
 * is not the service and is left out.
 */
const KINDS = ['DateTimeFormat', 'Collator', 'NumberFormat', 'PluralRules', 'RelativeTimeFormat'] as const;

const intl = Intl as unknown as Record<string, new (...args: unknown[]) => object>;
for (const kind of KINDS) {
  const Real = intl[kind];
  const Watched = function (...args: unknown[]) {
    const caller = new Error().stack?.split('\n')[2]?.trim() ?? '';
    if (!/node_modules\/(typescript|ts-node)\//.test(caller)) {
      process.stderr.write(`intl-built ${kind} ${caller}\n`);
    }
    return new Real(...args);
  };
  Object.setPrototypeOf(Watched, Real);
  Watched.prototype = Real.prototype;
  intl[kind] = Watched as unknown as new (...args: unknown[]) => object;
}
