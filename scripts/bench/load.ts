import autocannon from 'autocannon';
import { rssMb, threadCpuSeconds } from '../shared/process-tools';
import { BENCH_HOST, RequestSet } from './request-sets';

/** At most this many latencies are kept per run (bounded memory). */
const MAX_SAMPLES = 2_000_000;

export interface RunResult {
  requests: number;
  seconds: number;
  /** Response times in ms, fractional (autocannon's own histogram keeps whole ms only). */
  latencies: Float64Array;
  errors: number;
  non2xx: number;
  maxRssMb: number;
  /** CPU seconds the server used during the run (its threads' on-CPU time, from /proc). */
  cpuSeconds: number;
}

/**
 * Runs one request set against one server for `seconds` with `connections`
 * keep-alive connections, sampling the server's RSS every 250 ms and taking
 * the CPU time it used (less sensitive to a busy machine than req/s).
 */
export function runLoad(options: {
  port: number;
  pid: number;
  set: RequestSet;
  connections: number;
  seconds: number;
  token: string;
  /** Distinguishes the create bodies of the two servers (same length). */
  tag: string;
  /** Counter for unique create titles, shared across runs. */
  counter: { n: number };
  /** Requests per second over all connections; unset: each connection sends as soon as answered. */
  rate?: number;
}): Promise<RunResult> {
  const { set, counter, tag } = options;
  const headers: Record<string, string> = { host: BENCH_HOST };
  if (set.auth) headers.authorization = `Bearer ${options.token}`;
  if (set.body) headers['content-type'] = 'application/json';
  const request: autocannon.Request = { method: set.method, path: set.path, headers };
  if (set.body) {
    const body = set.body;
    request.setupRequest = (req) => ({ ...req, body: body(++counter.n, tag) });
  }
  const samples = new Float64Array(MAX_SAMPLES);
  let count = 0;
  let maxRss = rssMb(options.pid) ?? 0;
  const sampler = setInterval(() => {
    maxRss = Math.max(maxRss, rssMb(options.pid) ?? 0);
  }, 250);
  const cpuBefore = threadCpuSeconds(options.pid) ?? 0;
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${options.port}`,
        connections: options.connections,
        duration: options.seconds,
        ...(options.rate !== undefined && { overallRate: options.rate }),
        timeout: 10,
        requests: [request],
        skipAggregateResult: true,
      },
      (error, result) => {
        clearInterval(sampler);
        clearTimeout(guard);
        if (error) return reject(error);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        resolve({
          requests: result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'],
          seconds: Math.min(seconds, result.duration || seconds),
          latencies: samples.subarray(0, count),
          errors: result.errors + result.timeouts,
          non2xx: result.non2xx,
          maxRssMb: Math.max(maxRss, rssMb(options.pid) ?? 0),
          cpuSeconds: (threadCpuSeconds(options.pid) ?? cpuBefore) - cpuBefore,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, ms) => {
      if (count < MAX_SAMPLES) samples[count++] = ms;
    });
    // autocannon stops by itself; this only guards against a run that never ends.
    const guard = setTimeout(() => instance.stop(), (options.seconds + 30) * 1000);
  });
}

/** Percentile (0–100) of unsorted samples; NaN when empty. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/** Several runs of the same set, server and connections, merged. */
export interface Aggregate {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  maxRssMb: number;
  /** Server CPU time per request, ms. */
  cpuMsPerRequest: number;
  runs: number;
}

export function aggregate(runs: RunResult[]): Aggregate {
  const total = runs.reduce((n, r) => n + r.latencies.length, 0);
  const all = new Float64Array(total);
  let offset = 0;
  for (const run of runs) {
    all.set(run.latencies, offset);
    offset += run.latencies.length;
  }
  all.sort();
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  return {
    requests,
    seconds,
    rps: seconds > 0 ? requests / seconds : 0,
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    maxRssMb: Math.max(0, ...runs.map((r) => r.maxRssMb)),
    cpuMsPerRequest:
      requests > 0 ? (runs.reduce((n, r) => n + r.cpuSeconds, 0) * 1000) / requests : NaN,
    runs: runs.length,
  };
}
