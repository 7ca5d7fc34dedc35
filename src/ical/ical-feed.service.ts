import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DateTime, FixedOffsetZone } from 'luxon';
import { DataSource } from 'typeorm';
import { DataVersionService } from '../common/cache/data-version.service';
import { SearchGate } from '../common/limits/search-gate';
import { VersionStampedLru } from '../common/cache/version-stamped-lru';
import { LINKED_RECORDS_PER_KIND } from '../common/records/linked-record-cache';
import type { RequestContext } from '../common/http/request-context';
import { parseZone } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import { EventListFilters, keyedFilters } from '../events/event-list-query';
import { EventRecordsService, LinkedRecordCache } from '../events/event-records.service';
import { EventsService } from '../events/events.service';
import { IcalFeedQueryDto } from './dto/ical-query.dto';
import { calendarHead } from './ical-calendar';
import { writeVevent } from './ical-event';
import { assertFeedSize, assertWindow, strongTag, withFeedWindow } from './ical-feed-checks';
import { IcalFeedReader, IdPage } from './ical-feed-reader';
import {
  FeedLinks,
  feedLinkedLines,
  feedLinks,
  FeedRow,
  LeanContext,
  leanVevents,
} from './ical-feed-rows';
import { IcalSeriesExport, SeriesPart } from './ical-series-export';
import { TextChunk } from './ical-chunk';
import { FEED_EVENT_COUNT, FeedContentStamp, feedContentStamp } from './ical-feed-tag';

/** Events read and written per step: memory holds one batch, whatever the feed's size. */
const BATCH_SIZE = 500;

/** VEVENTs written between two turns of the event loop (see writeBatch). */
const WRITE_SLICE = 100;

/** Feeds (filters) whose VTIMEZONEs and content stamps are kept while the data version holds (a few kB each). */
const ZONE_CACHE_ENTRIES = 200;

/** Bump when the same data would be written as different bytes (it is part of the ETag). */
const FEED_FORMAT = 1;

/** A feed's series decided so far: true when written (once, at its first match), false when not visible. */
type SeriesSeen = Map<number, boolean>;

/**
 * A batch as read: its rows in list order (a series in place of its first
 * match), and the linked records of its plain events.
 */
interface ReadBatch {
  pieces: Array<FeedRow | SeriesPart>;
  plain: FeedRow[];
  links?: FeedLinks;
}

/** A feed whose filters are checked and whose validator is known, ready to stream. */
export interface PreparedFeed {
  filters: EventListFilters;
  password: string | undefined;
  /** The data version read before anything else of the feed (it stamps the cached VTIMEZONEs). */
  version: number;
  /** Strong ETag derived from the feed's content stamp and everything else the body depends on. */
  etag: string;
}

/**
 * iCalendar feeds (docs/api.md §14) of any `/events` filter, streamed in
 * keyset batches. Visibility, blanking and texts are exactly those of the
 * JSON records, which the VEVENTs are written from.
 */
@Injectable()
export class IcalFeedService {
  /** Events per keyset batch (a setting of the service, so tests can make batches small). */
  batchSize = BATCH_SIZE;
  /** Venue and organizer lines a feed keeps per kind (FeedLinkedLines), as many as records are kept; lowered by tests. */
  linesPerKind = LINKED_RECORDS_PER_KIND;
  /** Bytes of the last batch written: where the next batch's buffer starts. */
  private lastBatchBytes = 64 * 1024;
  /** Each feed's VTIMEZONEs by its filters, stamped with the data version they were read at. */
  private readonly zoneTexts = new VersionStampedLru<string>(ZONE_CACHE_ENTRIES);
  /** Each feed's content stamp by its filters, likewise but past MAX_AGE_MS: read again only after a write. */
  private readonly contentStamps = new VersionStampedLru<FeedContentStamp>(ZONE_CACHE_ENTRIES);
  private readonly uidHost: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly events: EventsService,
    private readonly records: EventRecordsService,
    private readonly versions: DataVersionService,
    private readonly reader: IcalFeedReader,
    private readonly series: IcalSeriesExport,
    private readonly searchGate: SearchGate,
  ) {
    this.uidHost = new URL(config.publicSiteUrl).host;
  }

  /**
   * Checks the filters (the same 400s as `/events`, plus a window over 10
   * years) and derives the ETag before a byte is sent: a streamed body cannot
   * be hashed first. The tag is derived from what the body is written from
   * (ical-feed-tag.ts), the resolved filters (a default window moves at
   * midnight) and the caller, so a write elsewhere leaves it as it is. The
   * data version, read first, stamps the feed's cached VTIMEZONEs.
   */
  async prepareFeed(query: IcalFeedQueryDto, ctx: RequestContext): Promise<PreparedFeed> {
    // The version's read is sent first; the filters' look-ups (term slugs, IDs) go out beside it.
    const versionRead = this.versions.current(ctx);
    const siteZone = parseZone(this.config.siteTimezone) ?? FixedOffsetZone.utcInstance;
    const [version, filters] = await Promise.all([
      versionRead,
      this.events.listFilters(withFeedWindow(query, DateTime.now().setZone(siteZone)), ctx),
    ]);
    if (!filters.include) assertWindow(filters);
    const content = await this.contentStampOf(filters, version, ctx);
    assertFeedSize(Number(content[FEED_EVENT_COUNT]), this.config.icalMaxEvents);
    const etag = strongTag([
      FEED_FORMAT,
      content,
      keyedFilters(filters),
      ctx.language,
      ctx.user ? [ctx.user.id, ctx.user.role] : null,
      query.password ?? null,
    ]);
    return { filters, password: query.password, version, etag };
  }

  /**
   * The feed's content stamp (ical-feed-tag.ts), kept with the data version
   * read before it as the zones are (see zonesOf): a feed fetched again
   * between writes, by any caller with the same filters, skips its aggregates.
   * The aggregates read every matched event's change rows (39 s over the
   * 868k events of a 10-year window at 1M): a feed over ICAL_MAX_EVENTS is
   * refused first by its count alone (index only, 1.4 s there; the `/events`
   * total of the same filters, kept with it).
   * Kept for as long as the version holds, not only MAX_AGE_MS: every write
   * the aggregates can see writes change rows, which bump the version in
   * their own transaction (ChangeTracker), so no bump can fail apart from them.
   */
  private async contentStampOf(
    filters: EventListFilters,
    version: number,
    ctx: RequestContext,
  ): Promise<FeedContentStamp> {
    const key = JSON.stringify(keyedFilters(filters));
    const kept = this.contentStamps.lookup(key, version);
    if (kept !== undefined) return kept.value;
    assertFeedSize(await this.events.matchCount(filters, ctx), this.config.icalMaxEvents);
    const stamp = await this.searchGate.run(filters.search !== undefined, () =>
      feedContentStamp(this.dataSource.manager, filters),
    );
    this.contentStamps.set(key, stamp, version);
    return stamp;
  }

  /**
   * The feed's text in pieces: the calendar's head at once, then its
   * VTIMEZONEs, then one Buffer per batch of events. Reading stops when the
   * consumer stops asking (a client that went away).
   */
  async *feed(prepared: PreparedFeed, ctx: RequestContext): AsyncGenerator<string | Buffer> {
    yield calendarHead(ctx.language, this.config.siteTimezone);
    // Node sends a response's first write on the next tick: let it go before the zone query,
    // which on SQLite runs synchronously on this thread.
    await nextTurn();
    yield await this.zonesOf(prepared);
    const lean = this.leanContext(prepared, ctx);
    const seen: SeriesSeen = new Map();
    const nextPage = this.pagesAhead(prepared);
    const readNext = async (): Promise<ReadBatch | undefined> => {
      const page = await nextPage();
      return page && this.readBatch(prepared, lean, seen, page);
    };
    let next: Promise<ReadBatch | undefined> = handled(readNext());
    for (;;) {
      const read = await next;
      if (!read) break;
      // The next batch is read while this one is written: the database works beside the writer.
      next = handled(readNext());
      // Let the reads go out first (their queries are sent from callbacks, after this code would run).
      await nextTurn();
      const bytes = await this.writeBatch(read, lean);
      if (bytes) yield bytes;
    }
    yield 'END:VCALENDAR\r\n';
  }

  /**
   * The feed's keyset pages of IDs, one read ahead: each call answers the
   * page read last and starts reading the one after it (index only, a
   * millisecond or two), so a batch's rows and links go out at once.
   */
  private pagesAhead(prepared: PreparedFeed): () => Promise<IdPage | undefined> {
    const { filters } = prepared;
    let next: Promise<IdPage> | undefined = handled(
      this.reader.idPage(filters, undefined, this.batchSize),
    );
    return async () => {
      if (!next) return undefined;
      const page = await next;
      next = page.after
        ? handled(this.reader.idPage(filters, page.after, this.batchSize))
        : undefined;
      return page.ids.length > 0 ? page : undefined;
    };
  }

  /**
   * The feed's VTIMEZONEs, read again only when the data changed: the zone
   * query reads the whole window (0.2–0.4 s at 1M events), before the first
   * VEVENT. Stamped with the version read before the query: a write's bump
   * retires it (a write with tracked changes bumps it in its own transaction,
   * so no feed stamped after that commit misses its zone; a feed may still
   * miss it when the write commits between its zone query and its batches).
   */
  private async zonesOf(prepared: PreparedFeed): Promise<string> {
    const key = JSON.stringify(keyedFilters(prepared.filters));
    const kept = this.zoneTexts.get(key, prepared.version);
    if (kept !== undefined) return kept;
    const text = await this.reader.feedZones(prepared.filters);
    this.zoneTexts.set(key, text, prepared.version);
    return text;
  }

  /** What writing a feed's VEVENTs needs beside the rows; one per feed (its linked-record cache). */
  private leanContext(prepared: PreparedFeed, ctx: RequestContext): LeanContext {
    return {
      records: this.records,
      ctx,
      siteUrl: this.config.publicSiteUrl,
      uidHost: this.uidHost,
      linked: new LinkedRecordCache(),
      lines: feedLinkedLines(this.linesPerKind),
      locked: this.events.lockTest(ctx, prepared.password),
    };
  }

  /**
   * One keyset page's events with what their VEVENTs are written from: the
   * rows and their link rows read side by side. A series (docs/api.md §14)
   * is written once, where the first of its events matches: its own VEVENT
   * with the rule, then its detached occurrences; its other matches are
   * skipped. Batches are read one after another (each starts when the one
   * before it was answered), so the series seen so far are known.
   */
  private async readBatch(
    prepared: PreparedFeed,
    lean: LeanContext,
    seen: SeriesSeen,
    page: IdPage,
  ): Promise<ReadBatch> {
    const [rows, linkRows] = await Promise.all([
      this.reader.feedRows(page.ids, lean.ctx),
      this.records.linkRows(page.ids),
    ]);
    const newSeries = [
      ...new Set(rows.flatMap((row) => (row.seriesId === null ? [] : [row.seriesId]))),
    ].filter((id) => !seen.has(id));
    const parts = await this.series.seriesParts(
      newSeries,
      prepared.filters.scope,
      lean.ctx,
      prepared.password,
      lean.linked,
    );
    for (const id of newSeries) seen.set(id, false);
    // In list order: a plain event, or a series at its first match, or (series not shown) the event alone.
    const pieces: Array<FeedRow | SeriesPart> = [];
    for (const row of rows) {
      const { seriesId } = row;
      const part = seriesId === null ? undefined : parts.get(seriesId);
      if (seriesId !== null && seen.get(seriesId)) continue;
      if (part && seriesId !== null) {
        seen.set(seriesId, true);
        pieces.push(part);
      } else {
        pieces.push(row);
      }
    }
    const plain = pieces.filter((piece): piece is FeedRow => 'timezone' in piece);
    return {
      pieces,
      plain,
      links: plain.length > 0 ? await feedLinks(plain, linkRows, lean) : undefined,
    };
  }

  /**
   * A batch's VEVENTs (and series) as one Buffer, in list order; undefined
   * when it has none. Written in slices with a turn of the event loop
   * between them, so the next batch's reads go on meanwhile: each of their
   * steps (a pooled connection, the query, its rows) waits for a turn, and a
   * batch written in one go held them up by its whole writing time.
   */
  private async writeBatch(read: ReadBatch, lean: LeanContext): Promise<Buffer | undefined> {
    const written = read.links ? leanVevents(read.plain, read.links, lean) : [];
    const partsOf = new Map(written.map((parts) => [parts.uid, parts]));
    const chunk = new TextChunk(this.lastBatchBytes);
    let count = 0;
    for (const piece of read.pieces) {
      if (++count % WRITE_SLICE === 0) await nextTurn();
      if (!('timezone' in piece)) {
        chunk.append(this.series.seriesText(piece));
        continue;
      }
      const parts = partsOf.get(piece.id);
      if (parts) writeVevent(parts, chunk);
    }
    // The next batch's buffer starts at this one's size (a little more), so it rarely grows.
    this.lastBatchBytes = Math.ceil(chunk.byteLength * 1.1);
    return chunk.byteLength > 0 ? chunk.bytes() : undefined;
  }
}

/**
 * A batch read in flight while the generator waits for its consumer (a slow
 * socket, or a client that left): marked handled, so a database error then is
 * not an unhandled rejection that ends the process; awaiting it still throws.
 */
function handled<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}
