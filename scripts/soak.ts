/**
 * Soak test: holds moderate load on the built service for minutes and checks
 * that its memory stays flat.
 *
 *   npm run soak -- [--duration 5m] [--connections 4] [--interval 5] [--max-slope 5]
 *                   [--min-growth 10] [--events 60]
 *
 * Starts dist/main.js (built first if missing) on a free loopback port, on
 * DATABASE_URL when set (its name must contain "test" or "soak": the soak
 * writes there) or else a temporary SQLite file; creates a small dataset
 * through the API; runs a mix of list, single, search reads and writes with
 * autocannon while sampling the service's RSS (/proc/<pid>/status) every
 * second. Prints a row of samples every --interval seconds and a verdict;
 * exits 1 when RSS grows faster than --max-slope MB/min (Theil-Sen slope over
 * the second half of the run) by more than --min-growth MB in that half, or
 * on any 5xx, request error or timeout.
 *
 * GC swings RSS by tens of MB and V8 keeps growing its heap for a few
 * minutes, so a 2-minute run cannot tell a small leak from noise (measured:
 * +5 MB/min over 60-120 s, flat from 150 s on). The growth floor keeps short
 * runs from failing on that; at 5 minutes and longer the slope limit decides,
 * catching a leak of a few hundred bytes per request at this load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { adminToken, createDataset } from './soak/dataset';
import { Counters, requestMix, runLoad } from './soak/load';
import { Sample, sampleTable, verdict } from './soak/report';
import { ensureBuilt, rssMb } from './shared/process-tools';
import { serviceEnv } from './shared/service-env';
import { Service, startService } from './soak/server';

const ROOT = resolve(__dirname, '..');
const SECRET = 'soak-secret-that-is-long-enough-for-hs256-0123456789';

/** "300", "300s", "5m" → seconds. */
function seconds(value: string, name: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m)?$/.exec(value);
  if (!match || Number(match[1]) <= 0) throw new Error(`--${name} must be like 30s or 5m`);
  return Number(match[1]) * (match[2] === 'm' ? 60 : 1);
}

function positive(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}

function options() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5m' },
      connections: { type: 'string', default: '4' },
      interval: { type: 'string', default: '5' },
      'max-slope': { type: 'string', default: '5' },
      'min-growth': { type: 'string', default: '10' },
      events: { type: 'string', default: '60' },
    },
    strict: true,
  });
  const duration = seconds(values.duration, 'duration');
  return {
    duration,
    connections: Math.round(positive(values.connections, 'connections')),
    interval: seconds(values.interval, 'interval'),
    maxSlope: positive(values['max-slope'], 'max-slope'),
    minGrowth: positive(values['min-growth'], 'min-growth'),
    events: Math.round(positive(values.events, 'events')),
    // Steady state: after a fifth of the run, at most a minute.
    warmup: Math.min(60, duration / 5),
  };
}

function databaseEnv(tempDir: string): { env: Record<string, string>; label: string } {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const file = join(tempDir, 'soak.sqlite');
    return { env: { SQLITE_PATH: file }, label: `SQLite ${file}` };
  }
  const name = new URL(url).pathname.slice(1);
  if (!/test|soak/i.test(name)) {
    throw new Error(
      `refusing to write to database "${name}": its name must contain "test" or "soak"`,
    );
  }
  return { env: { DATABASE_URL: url }, label: `MySQL database ${name}` };
}

async function main(): Promise<number> {
  const opts = options();
  const entry = ensureBuilt(ROOT, (line) => process.stderr.write(`soak: ${line}\n`));
  const tempDir = mkdtempSync(join(tmpdir(), 'calendar-soak-'));
  let service: Service | undefined;
  const cleanup = async () => {
    await service?.stop(5000);
    rmSync(tempDir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // Never leave the service running when the soak itself is stopped (Ctrl-C, a CI timeout).
    process.once(
      signal,
      () => void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143)),
    );
  }
  try {
    const db = databaseEnv(tempDir);
    service = await startService(ROOT, entry, serviceEnv(SECRET, db.env));
    const token = await adminToken(SECRET);
    const data = await createDataset(service.port, token, opts.events);
    console.log(
      `soak: ${db.label}, pid ${service.pid}, port ${service.port}; dataset ${data.events.length} events, ` +
        `${data.venues.length} venues, ${data.organizers.length} organizers, ` +
        `${data.categories.length + data.tags.length} terms`,
    );
    console.log(
      `soak: ${opts.duration} s, ${opts.connections} connections, RSS every ${opts.interval} s, ` +
        `steady state from ${opts.warmup.toFixed(0)} s, ` +
        `limit ${opts.maxSlope} MB/min and ${opts.minGrowth} MB over the second half\n`,
    );

    const counters: Counters = {
      responses: 0,
      non2xx: 0,
      status5xx: 0,
      errors: 0,
      byStatus: new Map(),
    };
    const samples: Sample[] = [];
    const started = Date.now();
    const pid = service.pid;
    const sample = () => {
      const rss = rssMb(pid);
      if (rss === undefined) return;
      const { responses, non2xx, status5xx, errors } = counters;
      const t = (Date.now() - started) / 1000;
      // The closing sample may come right after a timed one: it replaces it (fresher counts).
      if (samples.length > 0 && t - samples[samples.length - 1].t < 0.5) samples.pop();
      samples.push({ t, rssMb: rss, responses, non2xx, status5xx, errors });
    };
    sample();
    const sampler = setInterval(sample, Math.min(1, opts.interval) * 1000);
    const result = await runLoad({
      port: service.port,
      seconds: opts.duration,
      connections: opts.connections,
      requests: requestMix(data, token),
      counters,
    }).finally(() => clearInterval(sampler));
    sample();
    const elapsed = (Date.now() - started) / 1000;

    console.log(sampleTable(samples, opts.interval));
    const statuses = [...counters.byStatus].sort(([a], [b]) => a - b);
    console.log(`\nstatus codes: ${statuses.map(([s, n]) => `${s}: ${n}`).join(', ')}`);
    console.log(
      `latency: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    );
    const shutdown = await service.stop();
    const { ok, lines } = verdict({
      samples,
      seconds: opts.duration,
      warmupS: opts.warmup,
      maxSlope: opts.maxSlope,
      minGrowthMb: opts.minGrowth,
      elapsedS: elapsed,
    });
    console.log(`shutdown on SIGTERM: ${shutdown}`);
    console.log(lines.join('\n'));
    if (!ok && service.log().trim())
      console.log(`\nservice log (tail):\n${service.log().slice(-3000)}`);
    return ok ? 0 : 1;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`soak: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
