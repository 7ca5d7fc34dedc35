import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RequestContext } from '../common/http/request-context';
import { appConfig } from '../config/app.config';
import { Event } from '../events/entities/event.entity';
import type { EventRecord } from '../events/event.mapper';
import { eventListQuery } from '../events/event-list-query';
import type { LinkedRecordCache } from '../events/event-records.service';
import { EventsService } from '../events/events.service';
import type { StatusScope } from '../posts/post-access';
import { FeedEvent, vevent } from './ical-event';
import { recurrenceIdLine, recurrenceLines, seriesDateLines } from './ical-series';

/** An event of the feed as read and shown, with the columns the VEVENT needs beside its record. */
type Listed = { event: Event; record: EventRecord };

/** A visible series with what its export needs: its detached occurrences as shown, and its extra dates. */
export interface SeriesPart {
  series: Listed;
  detached: Listed[];
  hidden: string[];
}

/**
 * A recurring series as feeds and single-event calendars write it
 * (docs/api.md §14, §16): the series and its detached occurrences the caller
 * sees, read together, then written as VEVENTs (the lines: ical-series.ts).
 */
@Injectable()
export class IcalSeriesExport {
  private readonly uidHost: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) config: ConfigType<typeof appConfig>,
    private readonly events: EventsService,
  ) {
    this.uidHost = new URL(config.publicSiteUrl).host;
  }

  /**
   * The visible series among `ids` (rows with a rule; the caller's status
   * scope, as the list), each with its detached occurrences: those the
   * caller sees, shown as the list shows them, and the dates of the others.
   */
  async seriesParts(
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
  seriesText({ series, detached, hidden }: SeriesPart): string {
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
}
