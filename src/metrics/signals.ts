/**
 * What the service reports to its metrics, without depending on a metrics
 * library: caches, the database layer, webhooks and jobs call these; the
 * metrics module (MetricsService) installs the sink that records them. With
 * metrics off no sink is installed and each call is one property check.
 */
export interface MetricsSink {
  cacheLookups(cache: CacheName, hits: number, misses: number): void;
  query(operation: string, seconds: number | undefined, failed: boolean): void;
  webhookAttempt(outcome: WebhookOutcome, seconds: number): void;
  jobRun(job: string, startedMs: number, seconds: number, failed: boolean): void;
  feedPoll(cursorAgeSeconds: number): void;
  databaseUnavailable(): void;
  importRun(outcome: ImportOutcome, seconds: number, items: ImportItemCounts): void;
}

/** How an import run ended (label `outcome` of calendar_import_runs_total). */
export type ImportOutcome = 'imported' | 'not_modified' | 'refused' | 'fetch_failed' | 'failed';

/** A run's VEVENTs by what became of them (label `result` of calendar_import_items_total). */
export interface ImportItemCounts {
  created: number;
  updated: number;
  unchanged: number;
  trashed: number;
  skipped: number;
}

/** The caches that report hits and misses (label `cache` of calendar_cache_lookups_total). */
export type CacheName =
  | 'list_counts'
  | 'read_validators'
  | 'linked_records'
  | 'list_event_records'
  | 'feed_event_records'
  | 'feed_caught_up';

/** delivered: a 2xx; rejected: any other status; unreachable: no answer (time-out, refused, DNS). */
export type WebhookOutcome = 'delivered' | 'rejected' | 'unreachable';

let sink: MetricsSink | undefined;

/** Installs (or, with undefined, removes) the sink; one per process. */
export function setMetricsSink(next: MetricsSink | undefined): void {
  sink = next;
}

/** One cache's hit and miss counts. */
export class CacheStats {
  constructor(readonly cache: CacheName) {}

  record(hits: number, misses: number): void {
    sink?.cacheLookups(this.cache, hits, misses);
  }

  hit(): void {
    sink?.cacheLookups(this.cache, 1, 0);
  }

  miss(): void {
    sink?.cacheLookups(this.cache, 0, 1);
  }
}

export const signals = {
  get enabled(): boolean {
    return sink !== undefined;
  },
  query(operation: string, seconds: number | undefined, failed: boolean): void {
    sink?.query(operation, seconds, failed);
  },
  webhookAttempt(outcome: WebhookOutcome, seconds: number): void {
    sink?.webhookAttempt(outcome, seconds);
  },
  jobRun(job: string, startedMs: number, seconds: number, failed: boolean): void {
    sink?.jobRun(job, startedMs, seconds, failed);
  },
  feedPoll(cursorAgeSeconds: number): void {
    sink?.feedPoll(cursorAgeSeconds);
  },
  /** One import run ended (docs/api.md "Imports"). */
  importRun(outcome: ImportOutcome, seconds: number, items: ImportItemCounts): void {
    sink?.importRun(outcome, seconds, items);
  },
  /** A request answered 503 because the database could not be reached. */
  databaseUnavailable(): void {
    sink?.databaseUnavailable();
  },
};
