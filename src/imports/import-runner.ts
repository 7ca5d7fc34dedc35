import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { WriteRequest } from '../common/http/write-request';
import { appConfig } from '../config/app.config';
import { signals } from '../metrics/signals';
import { type ImportRun, type RunCause } from './entities/import-run.entity';
import type { ImportSource, RunOutcome } from './entities/import-source.entity';
import { fetchFeed } from './feed-fetcher';
import { IcalImportParser } from './ical-import-parser';
import type { ImportParseResult } from './import-item';
import type { ImportReport, ImportTarget } from './import-report';
import { ImportStore, type RunEnd } from './import-store';
import { ImportWriter } from './import-writer';

/** Skipped VEVENTs listed in a run's report; `skipped_count` counts them all. */
export const MAX_SKIPPED_LISTED = 1000;

const NO_COUNTS = { created: 0, updated: 0, unchanged: 0, trashed: 0 };

/**
 * One run of an import (docs/api.md "Imports"): the feed fetched (URL
 * imports, conditionally) or the uploaded body parsed, the result handed to
 * the ImportWriter, and the run's report recorded with its outcome. A feed
 * that cannot be fetched or read is a report, never an exception.
 */
@Injectable()
export class ImportRunner {
  private readonly logger = new Logger('Imports');

  constructor(
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly store: ImportStore,
    private readonly writer: ImportWriter,
  ) {}

  /** A parser for one feed of this service (floating times in SITE_TIMEZONE). */
  newParser(): IcalImportParser {
    return new IcalImportParser({ defaultZone: this.config.siteTimezone });
  }

  /**
   * An uploaded calendar, parsed already: written for `request` (its
   * idempotency claim and version bumps). A writer failure is recorded as a
   * `failed` run and thrown on (the request answers it).
   */
  async runUpload(
    source: ImportSource,
    parsed: ImportParseResult,
    startedMs: number,
    request: WriteRequest | undefined,
  ): Promise<ImportRun | undefined> {
    const written = await this.write(source, parsed, request);
    const end = this.ended(source.id, 'upload', startedMs, parsed, written);
    const run = await this.record(source.id, end);
    if ('error' in written) throw written.error;
    return run;
  }

  /**
   * A URL import's run: the feed fetched with its last validators and
   * streamed into the parser, then written. `claimedAtMs`: the claim it runs
   * under, released when it is recorded.
   */
  async runFeed(source: ImportSource, cause: RunCause, claimedAtMs: number): Promise<void> {
    const startedMs = Date.now();
    const parser = this.newParser();
    const { allowHttp, allowPrivateTargets } = this.config.webhooks;
    const fetched = await fetchFeed(source.url as string, {
      // The webhooks' target rules; the fetch's own size and time limits (FEED_FETCH_DEFAULTS).
      allowHttp,
      allowPrivateTargets,
      etag: source.etag,
      lastModified: source.lastModified,
      sink: parser,
    });
    let end: RunEnd;
    if (fetched.kind === 'failed') {
      end = this.ended(source.id, cause, startedMs, null, { report: undefined });
      end.run.outcome = 'fetch_failed';
      end.run.fetchResult = {
        outcome: 'failed',
        bytes: null,
        http_status: fetched.status,
        error: fetched.reason,
        detail: fetched.detail,
      };
    } else if (fetched.kind === 'not_modified') {
      end = this.ended(source.id, cause, startedMs, null, { report: undefined });
      end.run.outcome = 'not_modified';
      end.run.fetchResult = fetchedResult('not_modified', null);
      // A 304 may carry newer validators; else the old ones stay.
      end.etag = fetched.etag ?? undefined;
      end.lastModified = fetched.lastModified ?? undefined;
    } else {
      const parsed = parser.finish();
      const written = await this.write(source, parsed, undefined);
      end = this.ended(source.id, cause, startedMs, parsed, written);
      end.run.fetchResult = fetchedResult('fetched', fetched.bytes);
      // Only a feed that was written may be skipped by the next conditional fetch.
      if (end.run.outcome === 'imported') {
        end.etag = fetched.etag;
        end.lastModified = fetched.lastModified;
      }
    }
    end.claimedAtMs = claimedAtMs;
    await this.record(source.id, end);
  }

  private async write(
    source: ImportSource,
    parsed: ImportParseResult,
    request: WriteRequest | undefined,
  ): Promise<{ report: ImportReport | undefined } | { error: unknown }> {
    if (parsed.refused) return { report: undefined };
    try {
      return { report: await this.writer.apply(targetOf(source), parsed, request) };
    } catch (error) {
      this.logger.error(
        `import ${source.id} (${source.source}) could not be written: ${(error as Error).message}`,
      );
      return { error };
    }
  }

  /** The run's report from what parsing and writing came to; reported to the metrics. */
  private ended(
    importId: number,
    cause: RunCause,
    startedMs: number,
    parsed: ImportParseResult | null,
    written: { report: ImportReport | undefined } | { error: unknown },
  ): RunEnd {
    const finishedMs = Math.max(Date.now(), startedMs);
    const report = 'report' in written ? written.report : undefined;
    const outcome: RunOutcome =
      'error' in written ? 'failed' : parsed?.refused ? 'refused' : 'imported';
    const skipped = report?.skipped ?? [];
    const run: RunEnd['run'] = {
      importId,
      cause,
      outcome,
      startedMs,
      finishedMs,
      ...(report
        ? {
            created: report.created,
            updated: report.updated,
            unchanged: report.unchanged,
            trashed: report.trashed,
          }
        : NO_COUNTS),
      skippedCount: skipped.length,
      skipped: skipped.slice(0, MAX_SKIPPED_LISTED),
      fetchResult: null,
      refusal: parsed?.refused ?? null,
    };
    return { run };
  }

  /** Stores the run and reports it to the metrics. */
  private async record(importId: number, end: RunEnd): Promise<ImportRun | undefined> {
    const run = await this.store.recordRun(importId, end);
    const { outcome, startedMs, finishedMs, created, updated, unchanged, trashed } = end.run;
    signals.importRun(outcome, (finishedMs - startedMs) / 1000, {
      created,
      updated,
      unchanged,
      trashed,
      skipped: end.run.skippedCount,
    });
    return run;
  }
}

function fetchedResult(outcome: 'fetched' | 'not_modified', bytes: number | null) {
  return { outcome, bytes, http_status: null, error: null, detail: null };
}

/** Where and how the writer writes this import's events. */
export function targetOf(source: ImportSource): ImportTarget {
  return {
    source: source.source,
    language: source.language,
    status: source.status,
    categoryIds: source.categories,
    trashRemoved: source.trashRemoved,
    authorId: source.authorId,
  };
}
