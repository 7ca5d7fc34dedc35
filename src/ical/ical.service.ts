import { setImmediate as nextTurn } from 'node:timers/promises';
import { entityTag } from '../common/http/entity-tags';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DateTime, FixedOffsetZone } from 'luxon';
import { DataSource } from 'typeorm';
import type { PostRef } from '../posts/post-store';
import { DataVersionService } from '../common/cache/data-version.service';
import { VersionStampedLru } from '../common/cache/version-stamped-lru';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { parseZone } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import { Event } from '../events/entities/event.entity';
import type { EventRecord } from '../events/event.mapper';
import { EventListFilters, eventListQuery, orderEvents } from '../events/event-list-query';
import { EventRecordsService, LinkedRecordCache } from '../events/event-records.service';
import { EventsService } from '../events/events.service';
import { TEXT } from '../i18n/messages';
import { IcalEventQueryDto, IcalFeedQueryDto } from './dto/ical-query.dto';
import { listStatusScope, StatusScope } from '../posts/post-access';
import { FeedEvent, tzidOf, vevent, writeVevent } from './ical-event';
import {
  FEED_COLUMNS,
  FeedLinks,
  feedLinks,
  FeedRow,
  feedRow,
  joinFeedTexts,
  LeanContext,
  leanVevents,
} from './ical-feed-rows';
import {
  fixedZoneBlock,
  isFixedOffset,
  recurrenceIdLine,
  recurrenceLines,
  seriesDateLines,
} from './ical-series';
import { contentLine, escapeText } from './ical-text';
import { TextChunk } from './ical-chunk';
import { zoneBlock } from './ical-zones';
import { FEED_EVENT_COUNT, FeedContentStamp, feedContentStamp } from './ical-feed-tag';

/** Events read and written per step: memory holds one batch, whatever the feed's size. */
const BATCH_SIZE = 500;

/** VEVENTs written between two turns of the event loop (see writeBatch). */
const WRITE_SLICE = 100;

/** Feeds (filters) whose VTIMEZONEs and content stamps are kept while the data version holds (a few kB each). */
const ZONE_CACHE_ENTRIES = 200;

/** Bump when the same data would be written as different bytes (it is part of the ETag). */
const FEED_FORMAT = 1;

/** Default window of a feed: from 30 days back (docs/api.md §14); the end is the list's (24 months). */
const DEFAULT_DAYS_BACK = 30;
const MAX_WINDOW_YEARS = 10;

/** Where a keyset batch starts: after this event in list order. */
interface Cursor {
  id: number;
  startAt: number;
}

/** One keyset page of a feed: its event IDs in list order, and where the next page starts (none after the last). */
interface IdPage {
  ids: number[];
  after?: Cursor;
}

/** A feed's series decided so far: true when written (once, at its first match), false when not visible. */
type SeriesSeen = Map<number, boolean>;

/** An event of the feed as read and shown, with the columns the VEVENT needs beside its record. */
type Listed = { event: Event; record: EventRecord };

/** A visible series with what its export needs: its detached occurrences as shown, and its extra dates. */
interface SeriesPart {
  series: Listed;
  detached: Listed[];
  hidden: string[];
}

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
 * iCalendar (docs/api.md §14): feeds of any `/events` filter, streamed in
 * keyset batches, and single events. Visibility, blanking and texts are
 * exactly those of the JSON records, which the VEVENTs are written from.
 */
@Injectable()
export class IcalService {
  /** Events per keyset batch (a setting of the service, so tests can make batches small). */
  batchSize = BATCH_SIZE;
  /** Bytes of the last batch written: where the next batch's buffer starts. */
  private lastBatchBytes = 64 * 1024;
  /** Each feed's VTIMEZONEs by its filters, stamped with the data version they were read at. */
  private readonly zoneTexts = new VersionStampedLru<string>(ZONE_CACHE_ENTRIES);
  /** Each feed's content stamp by its filters, likewise: read again only after a write. */
  private readonly contentStamps = new VersionStampedLru<FeedContentStamp>(ZONE_CACHE_ENTRIES);
  private readonly uidHost: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly events: EventsService,
    private readonly records: EventRecordsService,
    private readonly versions: DataVersionService,
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
    const content = await this.contentStampOf(filters, version);
    assertFeedSize(content, this.config.icalMaxEvents);
    const etag = strongTag([
      FEED_FORMAT,
      content,
      filters,
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
   */
  private async contentStampOf(
    filters: EventListFilters,
    version: number,
  ): Promise<FeedContentStamp> {
    const key = JSON.stringify(filters);
    const kept = this.contentStamps.get(key, version);
    if (kept !== undefined) return kept;
    const stamp = await feedContentStamp(this.dataSource.manager, filters);
    this.contentStamps.set(key, stamp, version);
    return stamp;
  }

  /**
   * The feed's text in pieces: the calendar's head at once, then its
   * VTIMEZONEs, then one Buffer per batch of events. Reading stops when the
   * consumer stops asking (a client that went away).
   */
  async *feed(prepared: PreparedFeed, ctx: RequestContext): AsyncGenerator<string | Buffer> {
    yield this.calendarHead(ctx);
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
    let next: Promise<IdPage> | undefined = handled(this.idPage(prepared, undefined));
    return async () => {
      if (!next) return undefined;
      const page = await next;
      next = page.after ? handled(this.idPage(prepared, page.after)) : undefined;
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
    const key = JSON.stringify(prepared.filters);
    const kept = this.zoneTexts.get(key, prepared.version);
    if (kept !== undefined) return kept;
    const text = await this.feedZones(prepared.filters);
    this.zoneTexts.set(key, text, prepared.version);
    return text;
  }

  /**
   * The VTIMEZONEs of the zones the feed's events use, and those of the
   * series they belong to and of those series' occurrences (a series is
   * written whole, whichever of its occurrences matched).
   */
  private async feedZones(filters: EventListFilters): Promise<string> {
    const manager = this.dataSource.manager;
    const zones = await eventListQuery(manager, filters)
      .select('DISTINCT e.timezone', 'timezone')
      .addSelect('CASE WHEN e.seriesId IS NULL THEN 0 ELSE 1 END', 'inSeries')
      .getRawMany<{ timezone: string; inSeries: number | string }>();
    // Only a feed with series reads the zones of their other events (a second pass over the window).
    const matched = eventListQuery(manager, filters)
      .select('e.seriesId')
      .andWhere('e.seriesId IS NOT NULL');
    const seriesZones = zones.some((row) => Number(row.inSeries) === 1)
      ? await manager
          .createQueryBuilder(Event, 'x')
          .select('DISTINCT x.timezone', 'timezone')
          .where(`x.seriesId IN (${matched.getQuery()})`)
          .setParameters(matched.getParameters())
          .getRawMany<{ timezone: string }>()
      : [];
    return zoneComponents(
      [...zones, ...seriesZones].map((row) => row.timezone),
      seriesZones.map((row) => row.timezone),
    );
  }

  /** What writing a feed's VEVENTs needs beside the rows; one per feed (its linked-record cache). */
  private leanContext(prepared: PreparedFeed, ctx: RequestContext): LeanContext {
    return {
      records: this.records,
      ctx,
      siteUrl: this.config.publicSiteUrl,
      uidHost: this.uidHost,
      linked: new LinkedRecordCache(),
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
      this.feedRows(page.ids, lean.ctx),
      this.records.linkRows(page.ids),
    ]);
    const newSeries = [
      ...new Set(rows.flatMap((row) => (row.seriesId === null ? [] : [row.seriesId]))),
    ].filter((id) => !seen.has(id));
    const parts = await this.seriesParts(
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
   * The IDs of one keyset page after `after` (start, then ID; by ID with
   * `include`), over the listing index (index only), with where the next
   * page starts. Written out, not as a row constructor: MariaDB ranges over
   * the index only this way.
   */
  private async idPage(prepared: PreparedFeed, after: Cursor | undefined): Promise<IdPage> {
    const byId = prepared.filters.include !== undefined;
    const { window } = prepared.filters;
    // The window starts at the cursor: SQLite ranges over the index from the first lower bound
    // on start_at it is given, so with the window's own bound every page would rescan the
    // window from its start (quadratic in the feed's size).
    const filters =
      after && !byId && (window.startMin === undefined || window.startMin < after.startAt)
        ? { ...prepared.filters, window: { ...window, startMin: after.startAt } }
        : prepared.filters;
    const page = orderEvents(
      eventListQuery(this.dataSource.manager, filters)
        .select('e.id', 'id')
        .addSelect('e.startAt', 'startAt'),
      byId ? 'id' : 'start',
    ).limit(this.batchSize);
    if (after && byId) page.andWhere('e.id > :afterId', { afterId: after.id });
    if (after && !byId) {
      page.andWhere('e.startAt >= :afterStart AND (e.startAt > :afterStart OR e.id > :afterId)', {
        afterStart: after.startAt,
        afterId: after.id,
      });
    }
    const keys = await page.getRawMany<{ id: number | string; startAt: number | string }>();
    const last = keys[keys.length - 1];
    return {
      ids: keys.map((key) => Number(key.id)),
      after:
        keys.length < this.batchSize
          ? undefined
          : { id: Number(last.id), startAt: Number(last.startAt) },
    };
  }

  /** The columns and shown texts a VEVENT needs of these events, in the order of `ids`. */
  private async feedRows(ids: number[], ctx: RequestContext): Promise<FeedRow[]> {
    const qb = this.dataSource.manager
      .createQueryBuilder(Event, 'e')
      .select([])
      .where('e.id IN (:...feedIds)', { feedIds: ids });
    for (const [column, alias] of FEED_COLUMNS) qb.addSelect(column, alias);
    joinFeedTexts(qb, ctx.language);
    const byId = new Map(
      (await qb.getRawMany<Record<string, string | number | null>>()).map((raw) => {
        const row = feedRow(raw);
        return [row.id, row];
      }),
    );
    // An event deleted since its page was read is left out.
    return ids.flatMap((id) => byId.get(id) ?? []);
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
        chunk.append(this.seriesText(piece));
        continue;
      }
      const parts = partsOf.get(piece.id);
      if (parts) writeVevent(parts, chunk);
    }
    // The next batch's buffer starts at this one's size (a little more), so it rarely grows.
    this.lastBatchBytes = Math.ceil(chunk.byteLength * 1.1);
    return chunk.byteLength > 0 ? chunk.bytes() : undefined;
  }

  /**
   * The visible series among `ids` (rows with a rule; the caller's status
   * scope, as the list), each with its detached occurrences: those the
   * caller sees, shown as the list shows them, and the dates of the others.
   */
  private async seriesParts(
    ids: number[],
    scope: StatusScope,
    ctx: RequestContext,
    password: string | undefined,
    linked?: LinkedRecordCache,
  ): Promise<Map<number, SeriesPart>> {
    if (ids.length === 0) return new Map();
    const manager = this.dataSource.manager;
    const visible = await eventListQuery(manager, { scope, include: ids, window: {} })
      .select('e.id', 'id')
      .andWhere('e.recurrence IS NOT NULL')
      .andWhere('e.seriesId = e.id')
      .getRawMany<{ id: number | string }>();
    const seriesIds = visible.map((row) => Number(row.id));
    if (seriesIds.length === 0) return new Map();
    const detached = await manager
      .createQueryBuilder(Event, 'd')
      .select(['d.id', 'd.seriesId', 'd.occurrenceDate'])
      .where('d.seriesId IN (:...seriesIds)', { seriesIds })
      .andWhere('d.detached = :detached', { detached: true })
      .andWhere('d.id <> d.seriesId')
      .getMany();
    const shownIds = new Set(
      detached.length === 0
        ? []
        : (
            await eventListQuery(manager, {
              scope,
              include: detached.map((row) => row.id),
              window: {},
            })
              .select('e.id', 'id')
              .andWhere('e.hideFromListings = :hidden', { hidden: false })
              .getRawMany<{ id: number | string }>()
          ).map((row) => Number(row.id)),
    );
    const shown = detached
      .filter((row) => shownIds.has(row.id))
      .sort((a, b) => (a.occurrenceDate as string).localeCompare(b.occurrenceDate as string));
    const listed = new Map(
      (
        await this.events.listedEvents(
          [...seriesIds, ...shown.map((row) => row.id)],
          ctx,
          password,
          linked,
        )
      ).map((item) => [item.event.id, item]),
    );
    const parts = new Map<number, SeriesPart>();
    for (const id of seriesIds) {
      const series = listed.get(id);
      if (!series) continue;
      parts.set(id, {
        series,
        detached: shown.flatMap((row) => (row.seriesId === id ? (listed.get(row.id) ?? []) : [])),
        hidden: detached
          .filter((row) => row.seriesId === id && !shownIds.has(row.id))
          .map((row) => row.occurrenceDate as string),
      });
    }
    return parts;
  }

  /**
   * A series as one VEVENT with its rule, then one VEVENT per detached
   * occurrence with the series' UID and a RECURRENCE-ID (docs/api.md §14).
   * Every part carries the series' SEQUENCE: it grows with any change of an occurrence.
   */
  private seriesText({ series, detached, hidden }: SeriesPart): string {
    const row = series.event as Event & { recurrence: string };
    const revision = row.revision;
    const head: FeedEvent = {
      record: series.record,
      revision,
      linkedModifiedAt: row.linkedModifiedAt,
      uidHost: this.uidHost,
      series: {
        dates: seriesDateLines(row, series.record.utc_start_date, series.record.utc_end_date),
        rules: recurrenceLines(row, {
          hidden,
          detached: detached.map(({ event }) => event.occurrenceDate as string),
        }),
      },
    };
    return (
      vevent(head) +
      detached
        .map(({ event, record }) =>
          vevent({
            record,
            revision,
            linkedModifiedAt: event.linkedModifiedAt,
            uidHost: this.uidHost,
            instanceOf: {
              seriesId: row.id,
              recurrenceId: recurrenceIdLine(row, event.occurrenceDate as string),
            },
          }),
        )
        .join('')
    );
  }

  /**
   * One event as a calendar: the visibility, password and errors of
   * `GET /events/{id}`. A series is written whole, as in feeds; an
   * occurrence is written alone, as an event of its own (docs/decisions.md).
   */
  async event(ref: PostRef, query: IcalEventQueryDto, ctx: RequestContext): Promise<string> {
    const record = await this.events.get(ref, ctx, { password: query.password });
    const row = await this.dataSource.manager.findOne(Event, {
      where: { id: record.id },
      select: {
        id: true,
        revision: true,
        linkedModifiedAt: true,
        seriesId: true,
        recurrence: true,
      },
    });
    if (row && row.recurrence !== null && row.seriesId === row.id) {
      const scope = listStatusScope(ctx.user, undefined);
      const part = (await this.seriesParts([row.id], scope, ctx, query.password)).get(row.id);
      if (part) {
        const zones = [part.series.event, ...part.detached.map((item) => item.event)].map(
          (event) => event.timezone,
        );
        return (
          this.calendarHead(ctx) +
          zoneComponents(zones, zones) +
          this.seriesText(part) +
          'END:VCALENDAR\r\n'
        );
      }
    }
    const tzid = tzidOf(record);
    return (
      this.calendarHead(ctx) +
      zoneComponents(tzid ? [tzid] : []) +
      vevent({
        record,
        revision: row?.revision ?? 0,
        linkedModifiedAt: row?.linkedModifiedAt,
        uidHost: this.uidHost,
      }) +
      'END:VCALENDAR\r\n'
    );
  }

  private calendarHead(ctx: RequestContext): string {
    return (
      'BEGIN:VCALENDAR\r\n' +
      contentLine('VERSION', '2.0') +
      contentLine('PRODID', '-//Calendar Events Service//calendar/events/v1//EN') +
      contentLine('CALSCALE', 'GREGORIAN') +
      contentLine('METHOD', 'PUBLISH') +
      contentLine('X-WR-CALNAME', escapeText(TEXT.calendarName[ctx.language])) +
      contentLine('X-WR-TIMEZONE', escapeText(this.config.siteTimezone))
    );
  }
}

/**
 * A strong validator of everything a feed's body depends on. Not a record's
 * tag (recordTag): a streamed feed cannot hash its bytes before it sends
 * them, so it hashes what they are written from (ical-feed-tag.ts).
 */
export function strongTag(parts: unknown): string {
  return entityTag(JSON.stringify(parts));
}

/**
 * The VTIMEZONEs of the IANA zones among these; UTC and UTC±H need none,
 * except UTC±H zones of series (`seriesZones`), whose rules are written on
 * the zone's wall clock.
 */
function zoneComponents(zones: string[], seriesZones: string[] = []): string {
  const fixed = new Set(seriesZones.filter(isFixedOffset));
  return [...new Set(zones)]
    .sort()
    .flatMap((zone) => {
      if (fixed.has(zone)) return fixedZoneBlock(zone);
      return /^UTC/i.test(zone) ? [] : (zoneBlock(zone)?.text ?? []);
    })
    .join('');
}

/**
 * The feed's default window: `start_date` 30 days before today (site zone)
 * unless a lower date filter or `starts_*`/`ends_*` is sent; `end_date`
 * defaults as in lists (24 months ahead).
 */
function withFeedWindow(query: IcalFeedQueryDto, today: DateTime): IcalFeedQueryDto {
  const { start_date, starts_before, starts_after, ends_before, ends_after } = query;
  if (
    [start_date, starts_before, starts_after, ends_before, ends_after].some((v) => v !== undefined)
  )
    return query;
  return {
    ...query,
    start_date: today.minus({ days: DEFAULT_DAYS_BACK }).toFormat('yyyy-MM-dd'),
  };
}

/** A window without both ends, or longer than 10 years → 400 naming `end_date`. */
function assertWindow({ window }: EventListFilters): void {
  const from = window.startMin ?? window.endMin;
  const to = window.endMax ?? window.startMax;
  if (
    from === undefined ||
    to === undefined ||
    DateTime.fromSeconds(from, { zone: 'utc' }).plus({ years: MAX_WINDOW_YEARS }).toSeconds() < to
  ) {
    throw ApiError.invalid('end_date', 'feedWindow');
  }
}

/**
 * A feed holding more events than ICAL_MAX_EVENTS → 400 before a byte is
 * sent: one anonymous request could otherwise keep a core busy for minutes.
 * The count is the content stamp's first aggregate (the events the filters
 * match, as `/events` counts them), so it costs no query of its own.
 */
function assertFeedSize(content: FeedContentStamp, limit: number): void {
  const events = Number(content[FEED_EVENT_COUNT]);
  if (events > limit) {
    throw new ApiError('rest_feed_too_large', {
      args: { events, limit },
      data: { events, limit },
    });
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
