import { Module } from '@nestjs/common';
import { WritesModule } from '../writes/writes.module';
import { SearchGateModule } from '../common/limits/search-gate.module';
import { ExternalKeyUpserts } from '../posts/external-upsert';
import { VenuesController } from './venues.controller';
import { VenuesService } from './venues.service';

/** Venues; exports the service for the events module (records and the `venue` input). */
@Module({
  imports: [WritesModule, SearchGateModule],
  controllers: [VenuesController],
  providers: [VenuesService, ExternalKeyUpserts],
  exports: [VenuesService],
})
export class VenuesModule {}
