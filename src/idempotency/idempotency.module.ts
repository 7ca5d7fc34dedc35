import { Module } from '@nestjs/common';
import { ChangesModule } from '../changes/changes.module';
import { WritesModule } from '../writes/writes.module';
import { EventsModule } from '../events/events.module';
import { OrganizersModule } from '../organizers/organizers.module';
import { TermsModule } from '../terms/terms.module';
import { VenuesModule } from '../venues/venues.module';
import { IdempotencyRetention } from './idempotency-retention.service';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';
import { ReadTags } from './read-tags';

/**
 * Idempotent POSTs (docs/api.md §13). The interceptor is registered globally in
 * AppModule; WritesModule takes the change listener, ChangesModule gives the records
 * of lost answers; the five kinds' services give their ETags (ReadTags).
 */
@Module({
  imports: [WritesModule, ChangesModule, EventsModule, VenuesModule, OrganizersModule, TermsModule],
  providers: [IdempotencyStore, IdempotencyRetention, IdempotencyInterceptor, ReadTags],
  exports: [IdempotencyStore, IdempotencyRetention, IdempotencyInterceptor],
})
export class IdempotencyModule {}
