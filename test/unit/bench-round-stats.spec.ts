import {
  lossVerdict,
  median,
  medianInterval,
  percentOf,
  quantile,
} from '../../scripts/bench/round-stats';

describe('bench round statistics', () => {
  const oneToTwenty = Array.from({ length: 20 }, (_, i) => 20 - i);

  it('interpolates quantiles of unsorted values', () => {
    expect(median(oneToTwenty)).toBe(10.5);
    expect(quantile(oneToTwenty, 0.25)).toBe(5.75);
    expect(quantile([3, 1, 2], 0.5)).toBe(2);
    expect(quantile([], 0.5)).toBeNaN();
  });

  // Known answers: the order-statistic intervals of a median at 95 % (e.g. Conover, Practical
  // Nonparametric Statistics, table A3): n = 20 → 6th and 15th, n = 10 → 2nd and 9th, n = 6 → 1st and 6th.
  it('gives the order-statistic interval of the median', () => {
    expect(medianInterval(oneToTwenty)).toEqual([6, 15]);
    expect(medianInterval(Array.from({ length: 10 }, (_, i) => i + 1))).toEqual([2, 9]);
    expect(medianInterval([6, 5, 4, 3, 2, 1])).toEqual([1, 6]);
    expect(medianInterval([5, 4, 3, 2, 1])).toEqual([1, 5]);
    expect(medianInterval([])).toEqual([NaN, NaN]);
  });

  it('decides a loss target only when the whole interval is on one side', () => {
    expect(lossVerdict([0.975, 1.01], 0.03)).toBe('met');
    expect(lossVerdict([0.9, 0.965], 0.03)).toBe('missed');
    expect(lossVerdict([0.96, 0.99], 0.03)).toBe('undecided');
  });

  it('prints signed percentages', () => {
    expect(percentOf(0.97)).toBe('−3.0 %');
    expect(percentOf(1.05)).toBe('+5.0 %');
    expect(percentOf(0.99996)).toBe('+0.0 %');
  });
});
