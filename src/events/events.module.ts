import { Module } from '@nestjs/common';
import { ExternalKeyUpserts } from '../posts/external-upsert';
import { OrganizersModule } from '../organizers/organizers.module';
import { TermsModule } from '../terms/terms.module';
import { VenuesModule } from '../venues/venues.module';
import { EventsController } from './events.controller';
import { EventReader } from './event-reader';
import { EventRecordsService } from './event-records.service';
import { EventsService } from './events.service';
import { RecurrenceService } from './recurrence/recurrence.service';

/** Events, embedding and linking the venues, organizers and terms of their modules. */
@Module({
  imports: [TermsModule, VenuesModule, OrganizersModule],
  controllers: [EventsController],
  providers: [EventsService, EventRecordsService, RecurrenceService, ExternalKeyUpserts, EventReader],
  exports: [EventsService, EventRecordsService],
})
export class EventsModule {}
