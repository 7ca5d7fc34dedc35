/**
 * Benchmark of the iCalendar feeds (docs/api.md §14) on a seeded database:
 *
 *   npm run bench:ical -- --database-url mysql://root@127.0.0.1:3306/calendar_bench_ical_100k
 *                         [--runs 3] [--not-modified 200] [--json FILE] [--profile DIR]
 *   npm run bench:ical -- --sqlite-path data/calendar_bench_ical_100k.sqlite …
 *
 * Seed first (`npm run seed -- --events 100000 …`; the seed spreads events
 * five years either side of today). Starts the built service (dist/main.js,
 * pinned to core 0 when taskset exists) and measures, reading every byte:
 *  - the widest feed a request may ask for (10 years around today, so nearly
 *    every event): events per second, and the service's RSS rise over its
 *    RSS before the request (sampled every 20 ms from /proc);
 *  - the default-window feed: time to its first byte;
 *  - a conditional request with the feed's ETag: latency of the 304, p50/p95.
 * The widest feed's SHA-256 is reported, so two builds can be checked to
 * write the same bytes from the same data on the same day. `--profile DIR`
 * writes the service's V8 CPU profile there when it stops (node --cpu-prof).
 * `--first-byte-only` (for 1M events, with `--runs 0`): the default-window
 * feeds are left after their first event (after the calendar's head and the
 * VTIMEZONEs, so after the feed's zone query) instead of read to the end,
 * 5 s apart (`--feed-gap S` seconds: past 60 shows whether the content
 * stamp is kept beyond a minute); both the first byte and the first event are timed.
 * `--feed-query Q` measures the feed of `/events.ics?Q` instead of the widest
 * (e.g. `--feed-query ''` for the default window); `--max-events N` sets the
 * service's ICAL_MAX_EVENTS. A measured feed refused with 400
 * rest_feed_too_large is reported with the time its refusal took. The first
 * measured feed after start-up is reported apart as `cold` (the service's
 * caches and code are cold; the database's buffer pool is what it is).
 * `--read-only`: no migrations and no background workers, for a shared data set.
 * Exit code 1 when a feed does not parse as expected (no END:VCALENDAR).
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { hasTaskset, serviceReady, startServer, stopAll } from './bench/processes';
import { ensureBuilt, freePort, rssMb } from './shared/process-tools';

const ROOT = resolve(__dirname, '..');
const API = '/calendar/events/v1';

interface FeedRun {
  status: number;
  events: number;
  bytes: number;
  seconds: number;
  eventsPerSecond: number;
  firstByteMs: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssRiseMb: number;
  /** CPU time the service used for the feed, and events per CPU second (less sensitive to a busy machine). */
  cpuSeconds: number;
  eventsPerCpuSecond: number;
  sha256: string;
}

/** User + system CPU seconds of a process so far (/proc/<pid>/stat, 100 ticks a second). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** GET a path, reading every byte; the time to the first byte and to the end. */
function fetchFeed(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  firstByteOnly = false,
): Promise<{
  status: number;
  etag?: string;
  bytes: number;
  events: number;
  firstByteMs: number;
  /** Time to the first `BEGIN:VEVENT` (or the end of a feed without events). */
  firstEventMs: number;
  ms: number;
  complete: boolean;
  sha256: string;
}> {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    const req = http.get({ host: '127.0.0.1', port, path, headers }, (res) => {
      let firstByteMs = -1;
      let firstEventMs = -1;
      let bytes = 0;
      let events = 0;
      let tail = '';
      let left = false;
      const hash = createHash('sha256');
      res.on('data', (chunk: Buffer) => {
        if (left) return;
        hash.update(chunk);
        if (firstByteMs < 0) firstByteMs = elapsed();
        bytes += chunk.length;
        const text = tail + chunk.toString('latin1');
        if (firstEventMs < 0 && text.includes('BEGIN:VEVENT')) firstEventMs = elapsed();
        if (firstByteOnly && firstEventMs >= 0) {
          // Left after the first event: the service stops reading when the socket closes.
          left = true;
          req.destroy();
          done({
            status: res.statusCode ?? 0,
            etag: res.headers.etag,
            bytes,
            events: 0,
            firstByteMs,
            firstEventMs,
            ms: elapsed(),
            complete: true,
            sha256: '',
          });
          return;
        }
        events += text.split('BEGIN:VEVENT').length - 1;
        tail = text.slice(-16);
        events -= tail.split('BEGIN:VEVENT').length - 1;
      });
      res.on('end', () => {
        if (left) return;
        events += tail.split('BEGIN:VEVENT').length - 1;
        done({
          status: res.statusCode ?? 0,
          etag: res.headers.etag,
          bytes,
          events,
          firstByteMs: firstByteMs < 0 ? elapsed() : firstByteMs,
          firstEventMs: firstEventMs < 0 ? elapsed() : firstEventMs,
          ms: elapsed(),
          complete: res.statusCode !== 200 || tail.endsWith('END:VCALENDAR\r\n'),
          sha256: hash.digest('hex'),
        });
      });
      res.on('error', fail);
    });
    req.on('error', fail);
  });
}

/** The environment without DATABASE_URL (a SQLite bench must not inherit one). */
function withoutDatabaseUrl(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { DATABASE_URL: _url, ...rest } = env;
  return rest;
}

/** NaN when nothing was measured (it prints as null). */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      'sqlite-path': { type: 'string' },
      runs: { type: 'string', default: '3' },
      'not-modified': { type: 'string', default: '200' },
      json: { type: 'string' },
      profile: { type: 'string' },
      'first-byte-only': { type: 'boolean', default: false },
      'feed-query': { type: 'string' },
      /** Default-window feeds timed to their first byte (read to the end unless --first-byte-only). */
      'default-feeds': { type: 'string', default: '10' },
      'max-events': { type: 'string' },
      'read-only': { type: 'boolean', default: false },
      'feed-gap': { type: 'string', default: '5' },
    },
  });
  const sqlitePath = values['sqlite-path'] && resolve(values['sqlite-path']);
  const databaseUrl = sqlitePath ? '' : (values['database-url'] ?? process.env.DATABASE_URL ?? '');
  if (!databaseUrl && !sqlitePath)
    throw new Error('--database-url (or DATABASE_URL) or --sqlite-path is required');
  const entry = ensureBuilt(ROOT, (line) => process.stderr.write(`${line}\n`));
  const port = await freePort();
  const logDir = mkdtempSync(join(tmpdir(), 'bench-ical-'));
  const server = await startServer({
    name: 'service',
    port,
    args: [
      ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values.profile)}`] : []),
      entry,
    ],
    core: hasTaskset() ? 0 : undefined,
    logFile: join(logDir, 'service.log'),
    ready: serviceReady,
    env: {
      ...withoutDatabaseUrl(process.env),
      NODE_ENV: 'production',
      PORT: String(port),
      ...(sqlitePath ? { SQLITE_PATH: sqlitePath } : { DATABASE_URL: databaseUrl }),
      AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
      RATE_LIMIT_PER_MINUTE: '0',
      ICAL_RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      ...(values['max-events'] ? { ICAL_MAX_EVENTS: values['max-events'] } : {}),
      ...(values['read-only']
        ? { DB_MIGRATIONS_RUN: 'false', WEBHOOKS_WORKER: 'false', IMPORTS_WORKER: 'false' }
        : {}),
    },
  });
  try {
    const today = new Date();
    const day = (years: number, days = 0) => {
      const d = new Date(
        Date.UTC(today.getUTCFullYear() + years, today.getUTCMonth(), today.getUTCDate() + days),
      );
      return d.toISOString().slice(0, 10);
    };
    const feedQuery = values['feed-query'] ?? `start_date=${day(-5)}&end_date=${day(5, -1)}`;
    const measured = `${API}/events.ics${feedQuery ? `?${feedQuery}` : ''}`;
    const firstByteOnly = values['first-byte-only'] === true;
    const runs: FeedRun[] = [];
    const measure = async (): Promise<FeedRun> => {
      const before = rssMb(server.pid) ?? 0;
      const cpuBefore = cpuSeconds(server.pid);
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMb(server.pid) ?? 0);
      }, 20);
      const result = await fetchFeed(port, measured);
      clearInterval(sampler);
      peak = Math.max(peak, rssMb(server.pid) ?? 0);
      const cpu = cpuSeconds(server.pid) - cpuBefore;
      if ((result.status !== 200 && result.status !== 400) || !result.complete)
        throw new Error(`measured feed: ${result.status}, incomplete`);
      return {
        status: result.status,
        events: result.events,
        bytes: result.bytes,
        seconds: round(result.ms / 1000, 2),
        eventsPerSecond: Math.round(result.events / (result.ms / 1000)),
        firstByteMs: round(result.firstByteMs),
        rssBeforeMb: round(before),
        rssPeakMb: round(peak),
        rssRiseMb: round(peak - before),
        cpuSeconds: round(cpu, 2),
        eventsPerCpuSecond: Math.round(result.events / cpu),
        sha256: result.sha256,
      };
    };
    // The first feed after start-up, then the warm ones.
    const cold = firstByteOnly ? undefined : await measure();
    if (firstByteOnly) await fetchFeed(port, `${API}/events.ics`, {}, firstByteOnly);
    for (let i = 0; i < Number(values.runs); i++) runs.push(await measure());

    const firstBytes: number[] = [];
    const firstEvents: number[] = [];
    let etag = '';
    let defaultStatus = 0;
    const gapMs = Number(values['feed-gap']) * 1000;
    for (let i = 0; i < Number(values['default-feeds']); i++) {
      if (firstByteOnly) await new Promise((resolve) => setTimeout(resolve, gapMs));
      const result = await fetchFeed(port, `${API}/events.ics`, {}, firstByteOnly);
      defaultStatus = result.status;
      if ((result.status !== 200 && result.status !== 400) || !result.complete)
        throw new Error('default feed incomplete');
      firstBytes.push(result.firstByteMs);
      firstEvents.push(result.firstEventMs);
      etag = result.etag ?? '';
    }

    if (firstByteOnly) await new Promise((resolve) => setTimeout(resolve, 5000));
    const notModified: number[] = [];
    // A refused default feed (over ICAL_MAX_EVENTS) has no tag to send back.
    const conditionals = defaultStatus === 200 ? Number(values['not-modified']) : 0;
    for (let i = 0; i < conditionals; i++) {
      const result = await fetchFeed(port, `${API}/events.ics`, { 'If-None-Match': etag });
      if (result.status !== 304) throw new Error(`expected 304, got ${result.status}`);
      notModified.push(result.ms);
    }

    const report = {
      loadAverage: loadavg().map((n) => round(n, 2)),
      database: sqlitePath ? `sqlite:${sqlitePath}` : databaseUrl.replace(/\/\/[^@]*@/, '//'),
      measuredFeed: measured,
      cold,
      warm: runs,
      defaultFeedStatus: defaultStatus,
      defaultFeedFirstByteMs: {
        p50: round(percentile(firstBytes, 50)),
        max: round(Math.max(...firstBytes)),
      },
      defaultFeedFirstEventMs: {
        p50: round(percentile(firstEvents, 50)),
        max: round(Math.max(...firstEvents)),
      },
      notModifiedMs: {
        p50: round(percentile(notModified, 50), 2),
        p95: round(percentile(notModified, 95), 2),
      },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
  } finally {
    await stopAll();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
