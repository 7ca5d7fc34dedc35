import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DateTime, FixedOffsetZone } from 'luxon';
import { DataSource } from 'typeorm';
import type { PostRef } from '../posts/post-store';
import { DataVersionService } from '../common/cache/data-version.service';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { parseZone } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import { Event } from '../events/entities/event.entity';
import { EventListFilters, eventListQuery, orderEvents } from '../events/event-list-query';
import { LinkedRecordCache } from '../events/event-records.service';
import { EventsService } from '../events/events.service';
import { TEXT } from '../i18n/messages';
import { IcalEventQueryDto, IcalFeedQueryDto } from './dto/ical-query.dto';
import { tzidOf, vevent } from './ical-event';
import { contentLine, escapeText } from './ical-text';
import { zoneBlock } from './ical-zones';

/** Events read and written per step: memory holds one batch, whatever the feed's size. */
const BATCH_SIZE = 500;

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

/** A batch's VEVENTs, and where the next batch starts (none after the last). */
interface Batch {
  text: string;
  after?: Cursor;
}

/** A feed whose filters are checked and whose validator is known, ready to stream. */
export interface PreparedFeed {
  filters: EventListFilters;
  password: string | undefined;
  /** Strong ETag derived from the data version and everything the body depends on. */
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
  private readonly uidHost: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly events: EventsService,
    private readonly versions: DataVersionService,
  ) {
    this.uidHost = new URL(config.publicSiteUrl).host;
  }

  /**
   * Checks the filters (the same 400s as `/events`, plus a window over 10
   * years) and derives the ETag before a byte is sent: a streamed body cannot
   * be hashed first. The data version is read first, so a write that lands
   * while the feed is read gives the next request a new tag.
   */
  async prepareFeed(query: IcalFeedQueryDto, ctx: RequestContext): Promise<PreparedFeed> {
    const version = await this.versions.current();
    const siteZone = parseZone(this.config.siteTimezone) ?? FixedOffsetZone.utcInstance;
    const filters = await this.events.listFilters(
      withFeedWindow(query, DateTime.now().setZone(siteZone)),
      ctx,
    );
    if (!filters.include) assertWindow(filters);
    const etag = strongTag([
      FEED_FORMAT,
      version,
      filters,
      ctx.language,
      ctx.user ? [ctx.user.id, ctx.user.role] : null,
      query.password ?? null,
    ]);
    return { filters, password: query.password, etag };
  }

  /**
   * The feed's text in pieces: the calendar's head at once, then its
   * VTIMEZONEs, then one piece per batch of events. Reading stops when the
   * consumer stops asking (a client that went away).
   */
  async *feed(prepared: PreparedFeed, ctx: RequestContext): AsyncGenerator<string> {
    yield this.calendarHead(ctx);
    const zones = await eventListQuery(this.dataSource.manager, prepared.filters)
      .select('DISTINCT e.timezone', 'timezone')
      .getRawMany<{ timezone: string }>();
    yield zoneComponents(zones.map((row) => row.timezone));
    const linked = new LinkedRecordCache();
    // The next batch is read while the current one is written: the database and the socket overlap.
    let next: Promise<Batch> | undefined = this.batch(prepared, ctx, linked, undefined);
    try {
      while (next) {
        const batch: Batch = await next;
        next = batch.after ? this.batch(prepared, ctx, linked, batch.after) : undefined;
        if (batch.text) yield batch.text;
      }
    } finally {
      // A consumer that stopped early (the client left) leaves a batch in flight: let it settle.
      next?.catch(() => undefined);
    }
    yield 'END:VCALENDAR\r\n';
  }

  /**
   * One keyset batch after `after` (start, then ID; by ID with `include`),
   * written as VEVENTs. `after` of the result: where the next batch starts,
   * or undefined when this one was the last.
   */
  private async batch(
    prepared: PreparedFeed,
    ctx: RequestContext,
    linked: LinkedRecordCache,
    after: Cursor | undefined,
  ): Promise<Batch> {
    const byId = prepared.filters.include !== undefined;
    const qb = orderEvents(
      eventListQuery(this.dataSource.manager, prepared.filters)
        .select('e.id', 'id')
        .addSelect('e.startAt', 'startAt'),
      byId,
    ).limit(this.batchSize);
    if (after && byId) qb.andWhere('e.id > :afterId', { afterId: after.id });
    if (after && !byId) {
      // Written out, not as a row constructor: MariaDB ranges over the index only this way.
      qb.andWhere('e.startAt >= :afterStart AND (e.startAt > :afterStart OR e.id > :afterId)', {
        afterStart: after.startAt,
        afterId: after.id,
      });
    }
    const rows = await qb.getRawMany<{ id: number | string; startAt: number | string }>();
    if (rows.length === 0) return { text: '' };
    const listed = await this.events.listedEvents(
      rows.map((row) => Number(row.id)),
      ctx,
      prepared.password,
      linked,
    );
    const last = rows[rows.length - 1];
    return {
      text: listed
        .map(({ event, record }) =>
          vevent({ record, revision: event.revision, uidHost: this.uidHost }),
        )
        .join(''),
      after:
        rows.length < this.batchSize
          ? undefined
          : { id: Number(last.id), startAt: Number(last.startAt) },
    };
  }

  /** One event as a calendar: the visibility, password and errors of `GET /events/{id}`. */
  async event(ref: PostRef, query: IcalEventQueryDto, ctx: RequestContext): Promise<string> {
    const record = await this.events.get(ref, ctx, { password: query.password });
    const row = await this.dataSource.manager.findOne(Event, {
      where: { id: record.id },
      select: { id: true, revision: true },
    });
    const tzid = tzidOf(record);
    return (
      this.calendarHead(ctx) +
      zoneComponents(tzid ? [tzid] : []) +
      vevent({ record, revision: row?.revision ?? 0, uidHost: this.uidHost }) +
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

/** A strong validator of everything a body depends on. */
export function strongTag(parts: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 27)}"`;
}

/** The VTIMEZONEs of the IANA zones among these (UTC and UTC±H need none). */
function zoneComponents(zones: string[]): string {
  return [...new Set(zones)]
    .sort()
    .flatMap((zone) => (/^UTC/i.test(zone) ? [] : (zoneBlock(zone)?.text ?? [])))
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
