import { Module } from '@nestjs/common';
import { ExternalKeyUpserts } from '../posts/external-upsert';
import { OrganizersController } from './organizers.controller';
import { OrganizersService } from './organizers.service';

/** Organizers; exports the service for the events module (records and the `organizer` input). */
@Module({
  controllers: [OrganizersController],
  providers: [OrganizersService, ExternalKeyUpserts],
  exports: [OrganizersService],
})
export class OrganizersModule {}
