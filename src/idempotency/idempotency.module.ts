import { Module } from '@nestjs/common';
import { WritesModule } from '../writes/writes.module';
import { IdempotencyRetention } from './idempotency-retention.service';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';

/**
 * Idempotent POSTs (docs/api.md §13). The interceptor is registered globally in
 * AppModule; WritesModule takes the change listener; RecordReaders (global)
 * gives the records of lost answers and their ETags.
 */
@Module({
  imports: [WritesModule],
  providers: [IdempotencyStore, IdempotencyRetention, IdempotencyInterceptor],
  exports: [IdempotencyStore, IdempotencyRetention, IdempotencyInterceptor],
})
export class IdempotencyModule {}
