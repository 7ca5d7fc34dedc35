import { Module } from '@nestjs/common';
import { WritesModule } from '../writes/writes.module';
import { SearchGateModule } from '../common/limits/search-gate.module';
import { ExternalKeyUpserts } from '../posts/external-upsert';
import { OrganizersModule } from '../organizers/organizers.module';
import { TermsModule } from '../terms/terms.module';
import { VenuesModule } from '../venues/venues.module';
import { EventsController } from './events.controller';
import { EventBulkWrites } from './event-bulk-writes';
import { EventReader } from './event-reader';
import { EventRecordsService } from './event-records.service';
import { EventWrites } from './event-writes.service';
import { EventsService } from './events.service';
import { RecurrenceService } from './recurrence/recurrence.service';

/** Events, embedding and linking the venues, organizers and terms of their modules. */
@Module({
  imports: [WritesModule, TermsModule, VenuesModule, OrganizersModule, SearchGateModule],
  controllers: [EventsController],
  providers: [
    EventsService,
    EventWrites,
    EventBulkWrites,
    EventRecordsService,
    RecurrenceService,
    ExternalKeyUpserts,
    EventReader,
  ],
  exports: [EventsService, EventRecordsService, EventWrites, EventBulkWrites],
})
export class EventsModule {}
