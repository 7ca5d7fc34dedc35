import { Module } from '@nestjs/common';
import { WritesModule } from '../writes/writes.module';
import { VenuesController } from './venues.controller';
import { VenuesService } from './venues.service';

/** Venues; exports the service for the events module (records and the `venue` input). */
@Module({
  imports: [WritesModule],
  controllers: [VenuesController],
  providers: [VenuesService],
  exports: [VenuesService],
})
export class VenuesModule {}
