/** One RSS sample, `t` seconds after the load started. */
export interface Sample {
  t: number;
  rssMb: number;
  responses: number;
  non2xx: number;
  status5xx: number;
  errors: number;
}

/** Least-squares slope of RSS over time, in MB per minute (0 with fewer than 2 samples). */
export function slopeMbPerMin(samples: Sample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mt = samples.reduce((s, x) => s + x.t, 0) / n;
  const mr = samples.reduce((s, x) => s + x.rssMb, 0) / n;
  let num = 0;
  let den = 0;
  for (const x of samples) {
    num += (x.t - mt) * (x.rssMb - mr);
    den += (x.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

/**
 * Theil–Sen slope of RSS over time in MB per minute: the median of the slopes
 * between every pair of samples. Garbage collection makes RSS jump by tens of
 * MB in either direction; a least-squares line over a minute follows those
 * jumps, the median of pairwise slopes mostly does not. 0 with fewer than 2 samples.
 */
export function robustSlopeMbPerMin(samples: Sample[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length; j++) {
      const dt = samples[j].t - samples[i].t;
      if (dt > 0) slopes.push((samples[j].rssMb - samples[i].rssMb) / dt);
    }
  }
  if (slopes.length === 0) return 0;
  slopes.sort((a, b) => a - b);
  const mid = slopes.length >> 1;
  const median = slopes.length % 2 ? slopes[mid] : (slopes[mid - 1] + slopes[mid]) / 2;
  return median * 60;
}

const pad = (value: string | number, width: number) => String(value).padStart(width);

/**
 * One row every `everyS` seconds (and the last sample); RSS min and max over
 * the samples since the previous row show how far GC swings it.
 */
export function sampleTable(samples: Sample[], everyS = 0): string {
  const lines = [
    `${pad('t (s)', 7)} ${pad('RSS (MB)', 9)} ${pad('min-max', 13)} ${pad('responses', 10)} ${pad('req/s', 7)} ${pad('non-2xx', 8)} ${pad('5xx', 5)} ${pad('errors', 7)}`,
  ];
  let prev: Sample | undefined;
  let window: Sample[] = [];
  samples.forEach((s, i) => {
    window.push(s);
    const last = i === samples.length - 1;
    if (prev && !last && s.t - prev.t < everyS - 0.25) return;
    const rate = prev && s.t > prev.t ? (s.responses - prev.responses) / (s.t - prev.t) : 0;
    const rss = window.map((w) => w.rssMb);
    const range = `${Math.min(...rss).toFixed(0)}-${Math.max(...rss).toFixed(0)}`;
    lines.push(
      `${pad(s.t.toFixed(0), 7)} ${pad(s.rssMb.toFixed(1), 9)} ${pad(range, 13)} ${pad(s.responses, 10)} ${pad(rate.toFixed(0), 7)} ${pad(s.non2xx, 8)} ${pad(s.status5xx, 5)} ${pad(s.errors, 7)}`,
    );
    prev = s;
    window = [];
  });
  return lines.join('\n');
}

export interface Verdict {
  ok: boolean;
  lines: string[];
}

/**
 * Steady state starts after `warmupS`; the memory verdict is the (robust)
 * slope over the second half of the run, so start-up growth (JIT, pools,
 * caches) does not count. Memory fails only when that slope exceeds
 * `maxSlope` AND adds up to more than `minGrowthMb` over the second half:
 * V8 keeps sizing its heap for a few minutes, which in a 2-minute run reads
 * as a few MB/min, within the GC noise of ±10 MB.
 */
export function verdict(options: {
  samples: Sample[];
  seconds: number;
  warmupS: number;
  maxSlope: number;
  /** Growth over the second half (slope × its length) that must also be exceeded to fail. */
  minGrowthMb: number;
  elapsedS: number;
}): Verdict {
  const { samples, maxSlope } = options;
  const last = samples[samples.length - 1];
  const steady = samples.filter((s) => s.t >= options.warmupS);
  const secondHalf = samples.filter((s) => s.t >= options.seconds / 2);
  const slope = robustSlopeMbPerMin(secondHalf);
  const halfMin =
    secondHalf.length > 1 ? (secondHalf[secondHalf.length - 1].t - secondHalf[0].t) / 60 : 0;
  const growth = slope * halfMin;
  const mb = (x: number | undefined) => (x === undefined ? 'n/a' : `${x.toFixed(1)} MB`);
  const failures: string[] = [];
  if (secondHalf.length < 3) failures.push('fewer than 3 RSS samples in the second half');
  if (slope > maxSlope && growth > options.minGrowthMb) {
    failures.push(
      `RSS grows ${slope.toFixed(2)} MB/min > ${maxSlope} (${growth.toFixed(1)} MB over the second half > ${options.minGrowthMb})`,
    );
  }
  if (last.status5xx > 0) failures.push(`${last.status5xx} responses were 5xx`);
  if (last.errors > 0)
    failures.push(`${last.errors} requests failed (connection error or timeout)`);
  if (last.responses === 0) failures.push('no responses at all');
  const lines = [
    `RSS at start: ${mb(samples[0]?.rssMb)}; at start of steady state (t=${steady[0]?.t.toFixed(0) ?? '?'} s): ${mb(steady[0]?.rssMb)}`,
    `RSS at end: ${mb(last.rssMb)}; max: ${mb(Math.max(...samples.map((s) => s.rssMb)))}`,
    `RSS slope (Theil-Sen), steady state: ${robustSlopeMbPerMin(steady).toFixed(2)} MB/min; ` +
      `second half: ${slope.toFixed(2)} MB/min (limit ${maxSlope}), ${growth.toFixed(1)} MB over ${halfMin.toFixed(1)} min (limit ${options.minGrowthMb}); ` +
      `least squares, second half: ${slopeMbPerMin(secondHalf).toFixed(2)} MB/min`,
    `responses: ${last.responses}, req/s: ${(last.responses / options.elapsedS).toFixed(1)}, non-2xx: ${last.non2xx}, 5xx: ${last.status5xx}, errors/timeouts: ${last.errors}`,
    failures.length === 0
      ? 'verdict: PASS (memory flat, no 5xx)'
      : `verdict: FAIL: ${failures.join('; ')}`,
  ];
  return { ok: failures.length === 0, lines };
}
