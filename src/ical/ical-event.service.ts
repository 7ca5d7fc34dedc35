import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RequestContext } from '../common/http/request-context';
import { appConfig } from '../config/app.config';
import { Event } from '../events/entities/event.entity';
import { EventsService } from '../events/events.service';
import { listStatusScope } from '../posts/post-access';
import type { PostRef } from '../posts/post-store';
import { IcalEventQueryDto } from './dto/ical-query.dto';
import { calendarHead, zoneComponents } from './ical-calendar';
import { tzidOf, vevent } from './ical-event';
import { IcalSeriesExport } from './ical-series-export';

/** Single events as calendars (docs/api.md §14): `/events/{id}.ics` and `/events/by-slug/{slug}.ics`. */
@Injectable()
export class IcalEventService {
  private readonly uidHost: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly events: EventsService,
    private readonly series: IcalSeriesExport,
  ) {
    this.uidHost = new URL(config.publicSiteUrl).host;
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
    const head = calendarHead(ctx.language, this.config.siteTimezone);
    if (row && row.recurrence !== null && row.seriesId === row.id) {
      const scope = listStatusScope(ctx.user, undefined);
      const part = (await this.series.seriesParts([row.id], scope, ctx, query.password)).get(
        row.id,
      );
      if (part) {
        const zones = [part.series.event, ...part.detached.map((item) => item.event)].map(
          (event) => event.timezone,
        );
        return (
          head + zoneComponents(zones, zones) + this.series.seriesText(part) + 'END:VCALENDAR\r\n'
        );
      }
    }
    const tzid = tzidOf(record);
    return (
      head +
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
}
