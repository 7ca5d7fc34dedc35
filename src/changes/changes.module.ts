import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { OrganizersModule } from '../organizers/organizers.module';
import { TermsModule } from '../terms/terms.module';
import { VenuesModule } from '../venues/venues.module';
import { WritesModule } from '../writes/writes.module';
import { ChangesRetention } from './changes-retention.service';
import { ChangesController } from './changes.controller';
import { ChangesService } from './changes.service';

/**
 * The changes feed (docs/api.md §12): its page reads, caches and retention.
 * The changes themselves are numbered by the write hook in writes/.
 */
@Module({
  imports: [WritesModule, EventsModule, VenuesModule, OrganizersModule, TermsModule],
  controllers: [ChangesController],
  providers: [ChangesService, ChangesRetention],
  exports: [ChangesService],
})
export class ChangesModule {}
