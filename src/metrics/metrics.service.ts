import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { appConfig, joinPath } from '../config/app.config';
import { poolUsage } from './pool-usage';
import { readStoreSizes, type StoreSizes } from './store-sizes';
import {
  type CacheName,
  type ImportItemCounts,
  type ImportOutcome,
  type MetricsSink,
  setMetricsSink,
  type WebhookOutcome,
} from './signals';

/** Seconds: from a cached read (0.5 ms) to the request time-out. */
const REQUEST_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];
/** TypeORM measures statements in whole milliseconds: the first bucket holds the sub-ms ones. */
const QUERY_BUCKETS = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
const WEBHOOK_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** A poll's cursor: caught up, seconds, minutes, hours, days behind. */
const CURSOR_AGE_BUCKETS = [0, 1, 5, 15, 60, 300, 900, 3600, 21600, 86400, 604800];
/** An import run: a 304 (tens of ms) to a 10 MiB feed written on a busy database (minutes). */
const IMPORT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Store sizes read at scrape time are reused this long (several scrapers, one query). */
const STORE_SIZES_TTL_MS = 5000;

/**
 * The Prometheus metrics (docs/operations.md lists them): kept only when
 * METRICS_TOKEN is set, served on GET /metrics to that bearer token. Counters
 * and histograms are fed through the MetricsSink; pool usage and store sizes
 * (outbox backlog, feed head, idempotency keys) are read when scraped.
 */
@Injectable()
export class MetricsService implements MetricsSink, OnModuleInit, OnModuleDestroy {
  readonly registry = new Registry();
  readonly enabled: boolean;
  private readonly tokenHash?: Buffer;
  private readonly apiPath: string;
  /** The route label of the API's catch-all 404 (see routeOf). */
  private readonly apiCatchAll: { path: string };
  private storeSizes?: { at: number; sizes: Promise<StoreSizes | undefined> };

  private readonly requests = new Histogram({
    name: 'calendar_http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status, from the first middleware to the last byte.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  private readonly queries = new Histogram({
    name: 'calendar_db_query_duration_seconds',
    help: 'Successful database statements by operation (as TypeORM measures them, in whole ms).',
    labelNames: ['operation'] as const,
    buckets: QUERY_BUCKETS,
    registers: [this.registry],
  });
  private readonly queryErrors = new Counter({
    name: 'calendar_db_query_errors_total',
    help: 'Database statements that failed, by operation.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  private readonly unavailable = new Counter({
    name: 'calendar_db_unavailable_total',
    help: 'Requests answered 503 because the database could not be reached (connection refused, lost, timed out).',
    registers: [this.registry],
  });
  private readonly cacheLookupCounter = new Counter({
    name: 'calendar_cache_lookups_total',
    help: 'Cache lookups by cache and result (hit or miss).',
    labelNames: ['cache', 'result'] as const,
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'calendar_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (delivered: 2xx, rejected: other status, unreachable: no answer).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly webhookDurations = new Histogram({
    name: 'calendar_webhook_attempt_duration_seconds',
    help: 'Time of one webhook delivery attempt (connect, send, answer), by outcome.',
    labelNames: ['outcome'] as const,
    buckets: WEBHOOK_BUCKETS,
    registers: [this.registry],
  });
  private readonly feedPolls = new Histogram({
    name: 'calendar_changes_poll_cursor_age_seconds',
    help: 'Polls of the changes feed with a cursor: age of the oldest change the cursor had not seen (0: caught up).',
    buckets: CURSOR_AGE_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobLastRun = new Gauge({
    name: 'calendar_job_last_run_timestamp_seconds',
    help: 'When a periodic job last started (Unix time), by job.',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });
  private readonly jobLastDuration = new Gauge({
    name: 'calendar_job_last_run_duration_seconds',
    help: 'How long the last run of a periodic job took, by job.',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });
  private readonly jobRuns = new Counter({
    name: 'calendar_job_runs_total',
    help: 'Runs of periodic jobs by job and outcome (ok or failed).',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly importRuns = new Counter({
    name: 'calendar_import_runs_total',
    help: 'iCalendar import runs by outcome (imported, not_modified, refused, fetch_failed, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly importDurations = new Histogram({
    name: 'calendar_import_run_duration_seconds',
    help: 'Time of one import run (fetch, parse, write), by outcome.',
    labelNames: ['outcome'] as const,
    buckets: IMPORT_BUCKETS,
    registers: [this.registry],
  });
  private readonly importItems = new Counter({
    name: 'calendar_import_items_total',
    help: 'VEVENTs of import runs by result (created, updated, unchanged, trashed, skipped).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly importLastSuccess = new Gauge({
    name: 'calendar_import_last_success_timestamp_seconds',
    help: 'When the last import run that imported a feed or found it unchanged ended (Unix time).',
    registers: [this.registry],
  });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) config: ConfigType<typeof appConfig>,
  ) {
    this.enabled = config.metricsToken !== undefined;
    this.apiPath = config.apiPath;
    this.apiCatchAll = { path: joinPath(config.apiPath, '{*path}') };
    if (config.metricsToken) this.tokenHash = sha256(config.metricsToken);
    if (!this.enabled) return;
    collectDefaultMetrics({ register: this.registry });
    this.scrapeTimeGauges();
  }

  onModuleInit(): void {
    if (this.enabled) setMetricsSink(this);
  }

  onModuleDestroy(): void {
    if (this.enabled) setMetricsSink(undefined);
  }

  /** Middleware: answers GET /metrics (bearer METRICS_TOKEN), passes everything else on. */
  readonly scrapeEndpoint = (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const path = req.url?.split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    if (!this.authorized(req.headers.authorization)) {
      res.statusCode = 401;
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end('401 Unauthorized\n');
      return;
    }
    this.registry.metrics().then(
      (text) => {
        res.setHeader('Content-Type', this.registry.contentType);
        res.setHeader('Cache-Control', 'no-store');
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => {
        res.statusCode = 500;
        res.end();
      },
    );
  };

  /** Middleware: times every request into calendar_http_request_duration_seconds. */
  readonly timeRequests = (req: RoutedRequest, res: ServerResponse, next: () => void): void => {
    const started = performance.now();
    res.once('finish', () => {
      const labels = this.requestLabels.of(this.routeOf(req, res), req.method, res.statusCode);
      this.requests.observe(labels, (performance.now() - started) / 1000);
    });
    next();
  };

  /**
   * The route a request matched; a 404 under the API path that matched none
   * was answered by the API's catch-all (Nest's not-found handler), labelled
   * `…/{*path}` as docs/operations.md says; anything else unmatched was
   * answered before routing (413, 415).
   */
  private routeOf(req: RoutedRequest, res: ServerResponse): RoutedRequest['route'] {
    if (req.route || res.statusCode !== 404) return req.route;
    const url = req.originalUrl ?? req.url ?? '';
    const after = url.charAt(this.apiPath.length);
    const underApi =
      url.startsWith(this.apiPath) && (after === '' || after === '/' || after === '?');
    return underApi ? this.apiCatchAll : undefined;
  }

  /** Label sets made once and reused: per request and statement, no object to build. */
  private readonly requestLabels = new RequestLabels();
  private readonly operationLabels = new LabelSets((operation) => ({ operation }));
  private readonly hitLabels = new LabelSets((cache) => ({ cache, result: 'hit' }));
  private readonly missLabels = new LabelSets((cache) => ({ cache, result: 'miss' }));

  cacheLookups(cache: CacheName, hits: number, misses: number): void {
    if (hits > 0) this.cacheLookupCounter.inc(this.hitLabels.of(cache), hits);
    if (misses > 0) this.cacheLookupCounter.inc(this.missLabels.of(cache), misses);
  }

  query(operation: string, seconds: number | undefined, failed: boolean): void {
    if (failed) this.queryErrors.inc(this.operationLabels.of(operation));
    else if (seconds !== undefined)
      this.queries.observe(this.operationLabels.of(operation), seconds);
  }

  webhookAttempt(outcome: WebhookOutcome, seconds: number): void {
    this.webhookAttempts.inc({ outcome });
    this.webhookDurations.observe({ outcome }, seconds);
  }

  jobRun(job: string, startedMs: number, seconds: number, failed: boolean): void {
    this.jobLastRun.set({ job }, startedMs / 1000);
    this.jobLastDuration.set({ job }, seconds);
    this.jobRuns.inc({ job, outcome: failed ? 'failed' : 'ok' });
  }

  feedPoll(cursorAgeSeconds: number): void {
    this.feedPolls.observe(cursorAgeSeconds);
  }

  databaseUnavailable(): void {
    this.unavailable.inc();
  }

  importRun(outcome: ImportOutcome, seconds: number, items: ImportItemCounts): void {
    this.importRuns.inc({ outcome });
    this.importDurations.observe({ outcome }, seconds);
    for (const [result, count] of Object.entries(items)) {
      if (count > 0) this.importItems.inc({ result }, count);
    }
    if (outcome === 'imported' || outcome === 'not_modified') {
      this.importLastSuccess.setToCurrentTime();
    }
  }

  private authorized(header: string | undefined): boolean {
    // The scheme is case-insensitive (RFC 9110 §11.1).
    if (!this.tokenHash || header?.slice(0, 7).toLowerCase() !== 'bearer ') return false;
    // Hashes have one length: the comparison takes the same time whatever was sent.
    return timingSafeEqual(sha256(header.slice(7)), this.tokenHash);
  }

  /** Gauges whose values are read when Prometheus scrapes. */
  private scrapeTimeGauges(): void {
    const registers = [this.registry];
    const dataSource = this.dataSource;
    new Gauge({
      name: 'calendar_db_pool_connections',
      help: 'MySQL connection pool: connections in use and idle (absent on SQLite: one embedded connection).',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const usage = poolUsage(dataSource);
        this.reset();
        if (!usage) return;
        this.set({ state: 'in_use' }, usage.inUse);
        this.set({ state: 'idle' }, usage.idle);
      },
    });
    new Gauge({
      name: 'calendar_db_pool_waiting_requests',
      help: 'MySQL connection pool: requests waiting for a free connection.',
      registers,
      collect() {
        const usage = poolUsage(dataSource);
        this.reset();
        if (usage) this.set(usage.waiting);
      },
    });
    const sizes = () => this.currentStoreSizes();
    const fromSizes = (name: string, help: string, pick: (sizes: StoreSizes) => number) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const found = await sizes();
          // NaN while the database does not answer (calendar_db_up is 0): not a false 0.
          this.set(found ? pick(found) : NaN);
        },
      });
    new Gauge({
      name: 'calendar_db_up',
      help: 'Whether the scrape-time statements (outbox, feed head, idempotency keys) succeeded (1) or not (0).',
      registers,
      async collect() {
        this.set((await sizes()) ? 1 : 0);
      },
    });
    fromSizes(
      'calendar_webhook_backlog_messages',
      'Webhook messages waiting to be delivered (counted up to 100000).',
      (s) => s.webhookBacklog,
    );
    fromSizes(
      'calendar_webhook_oldest_pending_age_seconds',
      'Age of the oldest webhook message waiting to be delivered (0 when none).',
      (s) => s.oldestPendingAgeSeconds,
    );
    new Gauge({
      name: 'calendar_webhook_endpoints',
      help: 'Webhook endpoints by state (enabled or disabled).',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        const found = await sizes();
        this.reset();
        if (!found) return;
        this.set({ state: 'enabled' }, found.endpointsEnabled);
        this.set({ state: 'disabled' }, found.endpointsDisabled);
      },
    });
    fromSizes(
      'calendar_changes_head_sequence',
      'Sequence number of the latest change in the changes feed.',
      (s) => s.changesHead,
    );
    fromSizes(
      'calendar_idempotency_keys',
      'Idempotency keys kept (counted up to 100000).',
      (s) => s.idempotencyKeys,
    );
  }

  private currentStoreSizes(): Promise<StoreSizes | undefined> {
    const now = Date.now();
    if (!this.storeSizes || now - this.storeSizes.at > STORE_SIZES_TTL_MS) {
      this.storeSizes = { at: now, sizes: readStoreSizes(this.dataSource).catch(() => undefined) };
    }
    return this.storeSizes.sizes;
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Methods the API answers; Node parses some 30 more (PROPFIND, MKCOL, …), each of which would be a series. */
const API_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The `method` label: one of API_METHODS, or `other`, so no client can add series. */
export function methodLabel(method: string | undefined): string {
  return method !== undefined && API_METHODS.includes(method) ? method : 'other';
}

type Labels = Record<string, string>;
type RoutedRequest = IncomingMessage & { route?: { path?: unknown }; originalUrl?: string };

/** One label set per value of a label whose values the code names (operations, caches). */
class LabelSets {
  private readonly sets = new Map<string, Labels>();

  constructor(private readonly make: (value: string) => Labels) {}

  of(value: string): Labels {
    let labels = this.sets.get(value);
    if (!labels) this.sets.set(value, (labels = this.make(value)));
    return labels;
  }
}

/**
 * The label sets of calendar_http_request_duration_seconds by Express route
 * (the object, not its path: no string built per request), method and status:
 * as many as there are series (routes × 8 methods × statuses seen).
 */
class RequestLabels {
  private readonly byRoute = new Map<unknown, Map<number, Labels>>();

  of(route: RoutedRequest['route'], method: string | undefined, status: number): Labels {
    let byStatus = this.byRoute.get(route);
    if (!byStatus) this.byRoute.set(route, (byStatus = new Map()));
    const methodIndex = method === undefined ? -1 : API_METHODS.indexOf(method);
    const key = status * 8 + methodIndex + 1;
    let labels = byStatus.get(key);
    if (!labels) {
      labels = {
        method: methodIndex < 0 ? 'other' : API_METHODS[methodIndex],
        route: typeof route?.path === 'string' ? route.path : 'unmatched',
        status: String(status),
      };
      byStatus.set(key, labels);
    }
    return labels;
  }
}
