import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataVersionService } from '../common/cache/data-version.service';
import { VersionStampedLru } from '../common/cache/version-stamped-lru';
import { CacheStats, signals } from '../metrics/signals';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { utcWire } from '../common/time/dates';
import { RecordReaders } from '../common/records/record-readers';
import type { LinkedRecordCache } from '../events/event-records.service';
import { ChangeLogReader, ChangeRow } from './change-log-reader';
import { ChangeTracker } from '../writes/change-tracker';
import { ChangeRecord, FeedRecordCaches } from './feed-record-caches';
import { FeedReadAhead } from './feed-read-ahead';
import {
  CHANGE_COLLECTIONS,
  ChangeCollection,
  ChangeKind,
  kindOfCollection,
} from '../writes/change-kinds';
import type { ChangeEntryDto, ChangesPageDto } from './dto/changes-page.dto';
import { CHANGES_DEFAULT_PER_PAGE, ChangesQueryDto } from './dto/changes-query.dto';

/** Answers read ahead at a time, of all clients together (each up to 1,000 records). */
const READ_AHEAD_PAGES = 4;
/** Empty answers kept for polls repeated while nothing is written (~200 bytes each). */
const CAUGHT_UP_MAX = 1_000;

/**
 * The changes feed (docs/api.md §12). A page is the changes after the cursor's
 * position, in sequence (= commit) order, read in ONE statement together
 * with the sequence's head and the retention watermark, so all three come
 * from one snapshot. Each change is then shown to the caller as the single
 * read would: the records of a page are read per kind in one batch each.
 */
@Injectable()
export class ChangesService implements OnModuleInit {
  private readonly readAhead = new FeedReadAhead<ChangesPageDto>(READ_AHEAD_PAGES);
  /**
   * The last empty answer per request (cursor, parameters, caller) with the
   * data version read before it: a client that polls again while nothing
   * was written gets it again without a read (as ReadValidatorCache's 304).
   */
  private readonly caughtUp = new VersionStampedLru<ChangesPageDto>(
    CAUGHT_UP_MAX,
    Date.now,
    new CacheStats('feed_caught_up'),
  );

  constructor(
    private readonly readers: RecordReaders,
    private readonly versions: DataVersionService,
    private readonly tracker: ChangeTracker,
    private readonly reader: ChangeLogReader,
    private readonly caches: FeedRecordCaches,
  ) {}

  onModuleInit(): void {
    // With read replicas a record read for a change may predate it (lag): it is not kept.
    if (!this.reader.hasReadReplicas()) {
      this.tracker.onCommitted((changes) => this.caches.warm(changes));
    }
  }

  /**
   * One answer of the feed: the same empty one again when the client polls
   * while nothing was written; read ahead by the previous answer of the
   * same sync when nothing was written since (FeedReadAhead), else read
   * now; an answer with more to come starts reading the next one.
   */
  async page(query: ChangesQueryDto, ctx: RequestContext): Promise<ChangesPageDto> {
    const version = await this.versions.current(ctx);
    const key = readAheadKey(query, ctx);
    const caughtUp = this.caughtUp.get(key, version);
    if (caughtUp) {
      // Still a poll: its language and host keep having their changes read ahead (warm).
      if (!ctx.user) this.caches.touchPolled(ctx);
      if (query.since !== undefined) signals.feedPoll(0);
      return caughtUp;
    }
    const page = (await this.readAhead.take(key, version)) ?? (await this.read(query, ctx));
    if (query.since !== undefined) signals.feedPoll(cursorAgeSeconds(page));
    if (page.changes.length === 0 && !page.has_more) this.caughtUp.set(key, page, version);
    if (page.has_more) {
      const next = { ...query, since: page.next_cursor };
      this.readAhead.start(readAheadKey(next, ctx), version, () => this.read(next, ctx));
    }
    return page;
  }

  private async read(query: ChangesQueryDto, ctx: RequestContext): Promise<ChangesPageDto> {
    const codec = await this.reader.cursorCodec();
    const from = query.since === undefined ? undefined : codec.decode(query.since);
    if (query.since !== undefined && !from) throw ApiError.invalid('since', 'notOurCursor');
    const { kinds, perPage } = feedRequest(query);
    const position = from?.seq ?? 0;
    const read = await this.reader.readChanges(position, kinds, perPage + 1);
    // Tombstones after the cursor were purged: it could miss a deletion.
    if (from && read.purged > Math.max(from.seq, from.initial ?? 0)) {
      throw new ApiError('rest_sync_cursor_expired');
    }
    // A first sync leaves out deletions of records the client cannot have (at or below `initial`).
    const initial = from ? from.initial : read.head;
    const hasMore = read.rows.length > perPage;
    const rows = read.rows.slice(0, perPage);
    // With every kind and no more rows, the page holds every change after `position` up to the head.
    const whole = !hasMore && kinds.length === CHANGE_COLLECTIONS.length;
    const linked = await this.caches.linkedAt(
      read.head,
      ctx,
      whole ? { after: position, rows } : undefined,
    );
    if (!ctx.user) this.caches.touchPolled(ctx);
    // Polls of anonymous clients that caught up; the pages of a sync are read once each.
    const kept = ctx.user || hasMore || this.reader.hasReadReplicas() ? undefined : linked.scope;
    const records = await this.readableRecords(rows, ctx, linked.cache, kept);
    const changes: ChangeEntryDto[] = [];
    for (const { kind, id, seq, changedAt } of rows) {
      const record = records.get(kind)?.get(id);
      if (record)
        changes.push({ kind, id, type: 'upsert', changed_utc: utcWire(changedAt), record });
      else if (initial === undefined || seq > initial)
        changes.push({ kind, id, type: 'delete', changed_utc: utcWire(changedAt) });
    }
    // Without more rows, every change of these kinds up to the head was given.
    const next = hasMore ? rows[rows.length - 1].seq : Math.max(position, read.head);
    return { changes, next_cursor: codec.encode({ seq: next, initial }), has_more: hasMore };
  }

  /**
   * The records of a page the caller may read by ID, per kind, one batch per
   * kind (RecordReaders), all at once; venues, organizers and terms (their
   * own and those events embed) from `linked` where it has them.
   */
  private async readableRecords(
    rows: ChangeRow[],
    ctx: RequestContext,
    linked?: LinkedRecordCache,
    /** The scope of the event records kept for this anonymous poll (FeedEventCache). */
    keptScope?: string,
  ): Promise<Map<ChangeKind, Map<number, ChangeRecord>>> {
    const ids = RecordReaders.idsByKind(rows.filter((row) => !row.deleted));
    const eventRows = rows.filter((row) => row.kind === 'event' && !row.deleted);
    return (await this.readers.readAll(ids, (reader, kindIds, kinds) => {
      const read = (some: number[]) => reader.feed(some, ctx, linked);
      return kinds.includes('event') && keptScope !== undefined
        ? this.caches.eventRecords.recordsOf(keptScope, eventRows, read)
        : read(kindIds);
    })) as Map<ChangeKind, Map<number, ChangeRecord>>;
  }
}

/** Everything an answer depends on besides the data: the cursor, the parameters and the caller. */
function readAheadKey(query: ChangesQueryDto, ctx: RequestContext): string {
  const { kinds, perPage } = feedRequest(query);
  const caller = ctx.user ? [ctx.user.id, ctx.user.role] : [];
  return JSON.stringify([query.since, kinds, perPage, ctx.language, ctx.apiUrl, caller]);
}

/** The kinds a request follows (each once, in CHANGE_KINDS order: one answer, one key) and its page size. */
function feedRequest(query: ChangesQueryDto): { kinds: ChangeKind[]; perPage: number } {
  const asked = new Set<ChangeCollection>(query.kinds?.length ? query.kinds : CHANGE_COLLECTIONS);
  return {
    kinds: CHANGE_COLLECTIONS.filter((collection) => asked.has(collection)).map(kindOfCollection),
    perPage: query.per_page ?? CHANGES_DEFAULT_PER_PAGE,
  };
}

/** How far behind a poll's cursor was: the age of the oldest change it had not seen (0 when none). */
function cursorAgeSeconds(page: ChangesPageDto): number {
  const first = page.changes[0];
  if (!first) return 0;
  // `YYYY-MM-DD HH:MM:SS` in UTC.
  const changed = Date.parse(`${first.changed_utc.replace(' ', 'T')}Z`);
  return Number.isNaN(changed) ? 0 : Math.max(0, (Date.now() - changed) / 1000);
}
