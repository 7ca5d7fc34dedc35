import { parseRefresh, refreshText } from '../../../src/imports/refresh';

/* A URL import's `refresh` (docs/api.md §18): a whole number and m, h or d, from 15m to 30d. */

describe('import refresh', () => {
  it('reads minutes, hours and days within 15m … 30d', () => {
    expect(
      ['15m', '30m', '90m', '1h', '6h', '24h', '1d', '7d', '30d', '720h', '43200m'].map(
        parseRefresh,
      ),
    ).toEqual([
      900, 1800, 5400, 3600, 21_600, 86_400, 86_400, 604_800, 2_592_000, 2_592_000, 2_592_000,
    ]);
  });

  it('refuses anything else without reading past six characters', () => {
    for (const value of [
      '14m',
      '31d',
      '43201m',
      '0h',
      '01h',
      '1',
      'h',
      '',
      '1H',
      '1w',
      '1.5h',
      ' 1h',
      '1h ',
      '-1h',
      '1e3m',
      '1000000m',
      '9'.repeat(100000) + 'm',
      3600,
      null,
      undefined,
      ['1h'],
    ]) {
      expect([value, parseRefresh(value)]).toEqual([value, undefined]);
    }
  });

  it('shows a refresh with the largest unit that divides it', () => {
    expect([900, 5400, 7200, 86_400, 172_800, 2_592_000].map(refreshText)).toEqual([
      '15m',
      '90m',
      '2h',
      '1d',
      '2d',
      '30d',
    ]);
  });
});
