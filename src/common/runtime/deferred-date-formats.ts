/*
 * Nest's two loggers (`@nestjs/common/services/logger.service.js` and
 * `console-logger.service.js`) each build an `Intl.DateTimeFormat` for their
 * timestamps when their module loads. Building one reads about 8 MB of ICU
 * data (locale patterns, calendars, zone names) into the process, and the
 * service logs through pino, so those timestamps are never written
 * (docs/performance.md, Memory). Loaded through withDeferredDateFormats, such
 * a formatter is built by its first use instead.
 */

type DateTimeFormatConstructor = typeof Intl.DateTimeFormat;

/**
 * A stand-in for `build()`'s formatter that builds it on first use: every
 * property and method is the real formatter's (methods bound to it), and it
 * is an `instanceof Intl.DateTimeFormat`.
 */
export function deferredDateTimeFormat(build: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let real: Intl.DateTimeFormat | undefined;
  const formatter = () => (real ??= build());
  const shell = Object.create(Intl.DateTimeFormat.prototype) as Intl.DateTimeFormat;
  return new Proxy(shell, {
    get(_shell, key) {
      const value = Reflect.get(formatter(), key) as unknown;
      return typeof value === 'function' ? (value as () => unknown).bind(formatter()) : value;
    },
  });
}

/**
 * Runs `load` (a `require`) with every `Intl.DateTimeFormat` it builds
 * deferred to its first use; the global constructor is restored afterwards,
 * whatever `load` does.
 */
export function withDeferredDateFormats<T>(load: () => T): T {
  const intl = Intl as { DateTimeFormat: DateTimeFormatConstructor };
  const Real = intl.DateTimeFormat;
  const Deferred = function DateTimeFormat(
    locales?: string | string[],
    options?: Intl.DateTimeFormatOptions,
  ): Intl.DateTimeFormat {
    return deferredDateTimeFormat(() => new Real(locales, options));
  };
  Object.assign(Deferred, { supportedLocalesOf: Real.supportedLocalesOf.bind(Real) });
  intl.DateTimeFormat = Deferred as unknown as DateTimeFormatConstructor;
  try {
    return load();
  } finally {
    intl.DateTimeFormat = Real;
  }
}
