import { Module } from '@nestjs/common';
import { WritesModule } from '../writes/writes.module';
import { SearchGateModule } from '../common/limits/search-gate.module';
import { ExternalKeyUpserts } from '../posts/external-upsert';
import { OrganizersController } from './organizers.controller';
import { OrganizersService } from './organizers.service';

/** Organizers; exports the service for the events module (records and the `organizer` input). */
@Module({
  imports: [WritesModule, SearchGateModule],
  controllers: [OrganizersController],
  providers: [OrganizersService, ExternalKeyUpserts],
  exports: [OrganizersService],
})
export class OrganizersModule {}
