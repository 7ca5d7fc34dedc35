import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import type { WriteRequest } from '../common/http/write-request';
import { appConfig } from '../config/app.config';
import { committedRead } from '../database/write-transaction';
import { Event } from '../events/entities/event.entity';
import { lockEventRow } from '../events/event-store';
import { EventBulkWrites } from '../events/event-bulk-writes';
import { EventWrites } from '../events/event-writes.service';
import { TermLinksService } from '../terms/term-links.service';
import { Writes } from '../writes/writes.service';
import {
  type ChunkWriters,
  type ItemOutcome,
  readChunk,
  settledOutcome,
  writeChunk,
} from './import-chunk';
import type { ImportItem, ImportParseResult, SkippedVevent } from './import-item';
import { type ImportedEvent, liveEventsOfSource } from './import-lookups';
import type { ImportReport, ImportTarget } from './import-report';

/**
 * Items per write transaction: a chunk's reads are one query per kind, and
 * SQLite's single writer is never held for long (docs/performance.md, imports).
 */
export const IMPORT_CHUNK_ITEMS = 100;
/** Events of the source read per page when looking for those that left the feed. */
const REMOVED_PAGE = 1000;

/**
 * Writes a parsed iCalendar feed into events (docs/api.md "Imports"): each
 * item becomes the event its UID keys in the import's source, created,
 * updated or left alone when its hash is the one last imported; cancelled
 * items trash their event; events that left the feed are trashed when the
 * target asks. Every write runs through the event flows in units of work of
 * at most IMPORT_CHUNK_ITEMS items, so the changes feed, webhooks, ETags and
 * caches see an import as the same writes sent over HTTP.
 */
@Injectable()
export class ImportWriter {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly events: EventWrites,
    private readonly bulk: EventBulkWrites,
    private readonly terms: TermLinksService,
    private readonly writes: Writes,
  ) {}

  /**
   * Applies `parsed` to `target`'s source. `request`: the HTTP write it runs
   * for (its version bumps and idempotency claim); undefined for a scheduled
   * refresh. A refused feed writes nothing.
   */
  async apply(
    target: ImportTarget,
    parsed: ImportParseResult,
    request: WriteRequest | undefined,
  ): Promise<ImportReport> {
    const report: ImportReport = { created: 0, updated: 0, unchanged: 0, trashed: 0, skipped: [] };
    if (parsed.refused) return report;
    report.skipped.push(...parsed.skipped);
    const writers: ChunkWriters = {
      events: this.events,
      bulk: this.bulk,
      terms: this.terms,
      ctx: contextOf(target, request),
      siteZone: this.config.siteTimezone,
    };
    // Series and one-off events first, then in chunks of their own the detached instances,
    // which name occurrences the series made.
    const chunks = [
      ...chunksOf(
        parsed.items.filter((item) => !item.recurrenceId),
        IMPORT_CHUNK_ITEMS,
      ),
      ...chunksOf(
        parsed.items.filter((item) => item.recurrenceId),
        IMPORT_CHUNK_ITEMS,
      ),
    ];
    for (const chunk of chunks) await this.applyChunk(writers, target, chunk, report);
    if (target.trashRemoved) report.trashed += await this.trashRemoved(target, parsed, request);
    return report;
  }

  /**
   * One chunk in one unit of work; when an item's write is refused (an
   * ApiError: a rule over the occurrence limit, an organizer address the
   * organizers refuse), the chunk runs again item by item and the refused
   * ones are reported as skipped `rejected`.
   */
  private async applyChunk(
    writers: ChunkWriters,
    target: ImportTarget,
    chunk: ImportItem[],
    report: ImportReport,
  ): Promise<void> {
    const request = writers.ctx.write;
    // Read first, outside a transaction: a chunk with nothing to write opens none.
    const { existing, hashes } = await committedRead(this.dataSource, () =>
      readChunk(this.dataSource.manager, target, chunk),
    );
    const settled = chunk.map((item, i) => settledOutcome(item, existing[i], hashes[i]));
    if (settled.every((outcome) => outcome !== undefined)) {
      chunk.forEach((item, i) => count(report, item, settled[i] as ItemOutcome));
      return;
    }
    try {
      const outcomes = await this.writes.run(request, (unit) =>
        writeChunk(unit, writers, target, chunk),
      );
      chunk.forEach((item, i) => count(report, item, outcomes[i]));
      return;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (chunk.length === 1) {
        report.skipped.push(rejection(chunk[0], error));
        return;
      }
    }
    for (const item of chunk) await this.applyChunk(writers, target, [item], report);
  }

  /**
   * Trashes the source's events whose UID is no longer in the feed (neither
   * as an item nor as a skipped VEVENT), a unit of work per chunk; their hash
   * is cleared, so an item that comes back restores its event.
   */
  private async trashRemoved(
    target: ImportTarget,
    parsed: ImportParseResult,
    request: WriteRequest | undefined,
  ): Promise<number> {
    const inFeed = new Set([
      ...parsed.items.map((item) => item.uid),
      ...parsed.skipped.flatMap((skip) => skip.uid ?? []),
    ]);
    const gone: ImportedEvent[] = [];
    // Pages in key order: each starts after the last, so the walk ends with the source's events.
    for (let afterKey: string | undefined; ;) {
      const page = await liveEventsOfSource(
        this.dataSource.manager,
        target.source,
        afterKey,
        REMOVED_PAGE,
      );
      if (page.length === 0) break;
      afterKey = page[page.length - 1].externalId as string;
      gone.push(...page.filter((event) => !inFeed.has(event.externalId as string)));
    }
    return this.trashEvents(gone, request);
  }

  /**
   * Trashes `events` through the events' trash flow, a unit of work per
   * IMPORT_CHUNK_ITEMS events; their hash is cleared. Those trashed or deleted
   * since they were read are passed over. How many it trashed.
   */
  async trashEvents(
    events: readonly ImportedEvent[],
    request: WriteRequest | undefined,
  ): Promise<number> {
    let trashed = 0;
    for (const chunk of chunksOf(events, IMPORT_CHUNK_ITEMS)) {
      trashed += await this.writes.run(request, async (unit) => {
        let done = 0;
        for (const event of chunk) {
          await lockEventRow(unit.manager, event.id);
          const now = await unit.manager.findOne(Event, {
            where: { id: event.id },
            select: { id: true, status: true, seriesId: true, occurrenceDate: true },
          });
          // Trashed or deleted since the page was read.
          if (!now || now.status === 'trash') continue;
          await this.events.trashLocked(unit, now);
          await unit.manager.update(Event, event.id, { importHash: null });
          done++;
        }
        return done;
      });
    }
    return trashed;
  }
}

/** The context the event flows see: the import's administrator, writing in the feed's language. */
function contextOf(target: ImportTarget, request: WriteRequest | undefined): RequestContext {
  return {
    language: target.language,
    user: { id: target.authorId, role: 'administrator' },
    apiUrl: '',
    write: request,
  };
}

function count(report: ImportReport, item: ImportItem, outcome: ItemOutcome): void {
  if (outcome !== 'no_occurrence') {
    report[outcome] += 1;
    return;
  }
  report.skipped.push({
    index: 0,
    uid: item.uid,
    reason: 'no_occurrence',
    detail: `its series has no occurrence on ${item.recurrenceId?.local.slice(0, 10)}`,
  });
}

/** An item an event write refused, with the error's code and the parameters it names. */
function rejection(item: ImportItem, error: ApiError): SkippedVevent {
  const params = Object.keys(error.details.invalid ?? {}).join(', ');
  return {
    index: 0,
    uid: item.uid,
    reason: 'rejected',
    detail: `${error.key}${params ? ` (${params})` : ''}`.slice(0, 200),
  };
}

function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
