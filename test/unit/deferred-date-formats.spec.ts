import {
  deferredDateTimeFormat,
  withDeferredDateFormats,
} from '../../src/common/runtime/deferred-date-formats';

/*
 * Nest's loggers build their date formatters when their modules load; the
 * service loads them deferred to first use (src/load-nest.ts), which must
 * format exactly as the real formatter does.
 */
describe('deferred date formats', () => {
  const OPTIONS: Intl.DateTimeFormatOptions = {
    year: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    day: '2-digit',
    month: '2-digit',
  };

  it('builds nothing until first used, then once', () => {
    let built = 0;
    const formatter = deferredDateTimeFormat(() => {
      built++;
      return new Intl.DateTimeFormat(undefined, OPTIONS);
    });
    expect(built).toBe(0);
    formatter.format(0);
    formatter.formatToParts(0);
    expect(built).toBe(1);
  });

  it('formats, parts and options as the real formatter does', () => {
    const real = new Intl.DateTimeFormat('nl-NL', { ...OPTIONS, timeZone: 'Europe/Amsterdam' });
    const deferred = deferredDateTimeFormat(
      () => new Intl.DateTimeFormat('nl-NL', { ...OPTIONS, timeZone: 'Europe/Amsterdam' }),
    );
    for (const at of [0, Date.UTC(2026, 2, 29, 1, 30), Date.now()]) {
      expect(deferred.format(at)).toBe(real.format(at));
      expect(deferred.formatToParts(at)).toEqual(real.formatToParts(at));
    }
    expect(deferred.resolvedOptions()).toEqual(real.resolvedOptions());
    expect(deferred).toBeInstanceOf(Intl.DateTimeFormat);
  });

  it('defers the formatters a load builds and restores the constructor, also when the load throws', () => {
    const Real = Intl.DateTimeFormat;
    const made = withDeferredDateFormats(() => new Intl.DateTimeFormat(undefined, OPTIONS));
    expect(Intl.DateTimeFormat).toBe(Real);
    expect(made.format(0)).toBe(new Real(undefined, OPTIONS).format(0));
    expect(() =>
      withDeferredDateFormats(() => {
        throw new Error('load failed');
      }),
    ).toThrow('load failed');
    expect(Intl.DateTimeFormat).toBe(Real);
  });
});
