import { Global, Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { OrganizersModule } from '../organizers/organizers.module';
import { TermsModule } from '../terms/terms.module';
import { VenuesModule } from '../venues/venues.module';
import { ChangeLogReader } from './change-log-reader';
import { ChangeTracker } from './change-tracker';
import { ChangesRetention } from './changes-retention.service';
import { ChangesController } from './changes.controller';
import { ChangesService } from './changes.service';
import { FeedRecordCaches } from './feed-record-caches';

/**
 * Change tracking inside every write transaction and the changes feed
 * (docs/api.md §12). Global: other modules subscribe to ChangeTracker.
 */
@Global()
@Module({
  imports: [EventsModule, VenuesModule, OrganizersModule, TermsModule],
  controllers: [ChangesController],
  providers: [ChangeTracker, ChangesService, ChangeLogReader, FeedRecordCaches, ChangesRetention],
  exports: [ChangeTracker, ChangesService],
})
export class ChangesModule {}
