import { Module } from '@nestjs/common';
import { OperationRateLimit } from '../common/limits/operation-rate-limit';
import { EventsModule } from '../events/events.module';
import { WritesModule } from '../writes/writes.module';
import { BulkCreates } from './bulk-creates';
import { BatchController } from './batch.controller';
import { BatchService } from './batch.service';
import { OperationDispatcher } from './operation-dispatcher';

/** `POST {api}/batch` (docs/api.md §18): many writes through their own routes in one request. */
@Module({
  imports: [WritesModule, EventsModule],
  controllers: [BatchController],
  providers: [BatchService, OperationDispatcher, BulkCreates, OperationRateLimit],
})
export class BatchModule {}
