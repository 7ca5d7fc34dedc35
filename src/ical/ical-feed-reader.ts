import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RequestContext } from '../common/http/request-context';
import { SearchGate } from '../common/limits/search-gate';
import { Event } from '../events/entities/event.entity';
import { EventListFilters, eventListQuery, orderEvents } from '../events/event-list-query';
import { zoneComponents } from './ical-calendar';
import { FEED_COLUMNS, FeedRow, feedRow, joinFeedTexts } from './ical-feed-rows';

/** Where a keyset batch starts: after this event in list order. */
export interface Cursor {
  id: number;
  startAt: number;
}

/** One keyset page of a feed: its event IDs in list order, and where the next page starts (none after the last). */
export interface IdPage {
  ids: number[];
  after?: Cursor;
}

/**
 * The feed's queries (docs/api.md §14): its keyset pages of IDs, the rows a
 * page's VEVENTs are written from, and the zones its events use.
 */
@Injectable()
export class IcalFeedReader {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly searchGate: SearchGate,
  ) {}

  /**
   * The IDs of one keyset page of `limit` after `after` (start, then ID; by ID with
   * `include`), over the listing index (index only), with where the next
   * page starts. Written out, not as a row constructor: MariaDB ranges over
   * the index only this way.
   */
  idPage(feedFilters: EventListFilters, after: Cursor | undefined, limit: number): Promise<IdPage> {
    // A search's page reads every match again: each page takes a turn (SearchGate), waiting
    // for it, as the feed has begun.
    return this.searchGate.run(
      feedFilters.search !== undefined,
      () => this.readIdPage(feedFilters, after, limit),
      { patient: true },
    );
  }

  private async readIdPage(
    feedFilters: EventListFilters,
    after: Cursor | undefined,
    limit: number,
  ): Promise<IdPage> {
    const byId = feedFilters.include !== undefined;
    const { window } = feedFilters;
    // The window starts at the cursor: SQLite ranges over the index from the first lower bound
    // on start_at it is given, so with the window's own bound every page would rescan the
    // window from its start (quadratic in the feed's size).
    const filters =
      after && !byId && (window.startMin === undefined || window.startMin < after.startAt)
        ? { ...feedFilters, window: { ...window, startMin: after.startAt } }
        : feedFilters;
    const page = orderEvents(
      eventListQuery(this.dataSource.manager, filters)
        .select('e.id', 'id')
        .addSelect('e.startAt', 'startAt'),
      byId ? 'id' : 'start',
    ).limit(limit);
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
        keys.length < limit ? undefined : { id: Number(last.id), startAt: Number(last.startAt) },
    };
  }

  /** The columns and shown texts a VEVENT needs of these events, in the order of `ids`. */
  async feedRows(ids: number[], ctx: RequestContext): Promise<FeedRow[]> {
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
   * The VTIMEZONEs of the zones the feed's events use, and those of the
   * series they belong to and of those series' occurrences (a series is
   * written whole, whichever of its occurrences matched).
   */
  feedZones(filters: EventListFilters): Promise<string> {
    return this.searchGate.run(filters.search !== undefined, () => this.readZones(filters), {
      patient: true,
    });
  }

  private async readZones(filters: EventListFilters): Promise<string> {
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
}
