import { Module } from '@nestjs/common';
import { SearchGateModule } from '../common/limits/search-gate.module';
import { EventsModule } from '../events/events.module';
import { IcalController } from './ical.controller';
import { IcalEventService } from './ical-event.service';
import { IcalFeedReader } from './ical-feed-reader';
import { IcalFeedService } from './ical-feed.service';
import { IcalSeriesExport } from './ical-series-export';

/** iCalendar feeds and single events (docs/api.md §14), written from the events module's records. */
@Module({
  imports: [EventsModule, SearchGateModule],
  controllers: [IcalController],
  providers: [IcalFeedService, IcalFeedReader, IcalSeriesExport, IcalEventService],
})
export class IcalModule {}
