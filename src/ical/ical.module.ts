import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { IcalController } from './ical.controller';
import { IcalService } from './ical.service';

/** iCalendar feeds and single events (docs/api.md §14), written from the events module's records. */
@Module({
  imports: [EventsModule],
  controllers: [IcalController],
  providers: [IcalService],
})
export class IcalModule {}
