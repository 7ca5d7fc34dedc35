import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { OrganizersModule } from '../organizers/organizers.module';
import { TermsModule } from '../terms/terms.module';
import { VenuesModule } from '../venues/venues.module';
import { WritesModule } from '../writes/writes.module';
import { ChangeLogReader } from './change-log-reader';
import { ChangesRetention } from './changes-retention.service';
import { ChangesController } from './changes.controller';
import { ChangesService } from './changes.service';
import { FeedRecordCaches } from './feed-record-caches';

/**
 * The changes feed (docs/api.md §12): its page reads, caches and retention.
 * The changes themselves are numbered by the write hook in writes/.
 */
@Module({
  imports: [WritesModule, EventsModule, VenuesModule, OrganizersModule, TermsModule],
  controllers: [ChangesController],
  providers: [ChangesService, ChangeLogReader, FeedRecordCaches, ChangesRetention],
  exports: [ChangesService],
})
export class ChangesModule {}
