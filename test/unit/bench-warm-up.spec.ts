import type { RunResult } from '../../scripts/bench/load';
import { describeWarmUp, isSettled, warmUp } from '../../scripts/bench/warm-up';

/** A load that answers slices with the given CPU ms per request (100 requests each). */
function slices(costs: number[], failAt?: number) {
  const asked: number[] = [];
  const load = (seconds: number): Promise<RunResult> => {
    const i = asked.length;
    asked.push(seconds);
    const cost = costs[Math.min(i, costs.length - 1)];
    return Promise.resolve({
      requests: 100,
      seconds,
      latencies: new Float64Array(0),
      errors: i === failAt ? 1 : 0,
      non2xx: 0,
      maxRssMb: 0,
      cpuSeconds: (cost * 100) / 1000,
    });
  };
  return { load, asked };
}

const options = { minSeconds: 2, maxSeconds: 30, sliceSeconds: 3, tolerance: 0.05 };

describe('bench warm-up', () => {
  it('goes on while CPU per request falls and stops at the first three slices that agree', async () => {
    // 4.0 and 3.9 agree, but the cost still falls: two slices are not enough.
    const { load, asked } = slices([6.8, 4.7, 4.0, 3.9, 3.6, 3.3, 3.35, 3.3, 3.1]);
    const result = await warmUp(load, options);
    expect(result).toEqual({
      seconds: 24,
      settled: true,
      cpuMsPerRequest: [6.8, 4.7, 4.0, 3.9, 3.6, 3.3, 3.35, 3.3],
    });
    expect(asked).toEqual([3, 3, 3, 3, 3, 3, 3, 3]);
    expect(describeWarmUp('create ours', result)).toBe(
      'create ours: 24 s, settled, CPU ms/request 6.80 → 3.30',
    );
  });

  it('runs at least the minimum even when the first slices agree', async () => {
    const { asked, load } = slices([2, 2, 2, 2]);
    const result = await warmUp(load, { ...options, minSeconds: 13 });
    expect(result.settled).toBe(true);
    expect(result.seconds).toBe(15);
    expect(asked).toHaveLength(5);
  });

  it('never stops before the minimum, even with a smaller maximum', async () => {
    const { asked, load } = slices([2, 2, 2, 2, 2, 2]);
    const result = await warmUp(load, { ...options, minSeconds: 12, maxSeconds: 6 });
    expect(result).toMatchObject({ settled: true, seconds: 12 });
    expect(asked).toHaveLength(4);
  });

  it('stops at the maximum when it never settles', async () => {
    const { asked, load } = slices([10, 8, 6, 4, 2, 1, 0.5, 0.25, 0.12, 0.06, 0.03, 0.01]);
    const result = await warmUp(load, options);
    expect(result.settled).toBe(false);
    expect(result.seconds).toBe(30);
    expect(asked).toHaveLength(10);
  });

  it('ends at a slice with errors, unsettled', async () => {
    const { asked, load } = slices([5, 5, 5], 0);
    expect(await warmUp(load, options)).toMatchObject({ settled: false, seconds: 3 });
    expect(asked).toHaveLength(1);
  });

  it('compares the last three slices with their lowest, and never a slice without requests', () => {
    expect(isSettled([9, 4, 4.19, 4.1], 0.05)).toBe(true);
    expect(isSettled([4, 4.21, 4.1], 0.05)).toBe(false);
    expect(isSettled([4, 4.1], 0.05)).toBe(false);
    expect(isSettled([NaN, 4, 4], 0.05)).toBe(false);
    expect(isSettled([0, 0, 0], 0.05)).toBe(false);
  });
});
