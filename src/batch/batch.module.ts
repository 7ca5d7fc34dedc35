import { Module } from '@nestjs/common';
import { WritesModule } from '../writes/writes.module';
import { BatchController } from './batch.controller';
import { BatchService } from './batch.service';
import { OperationDispatcher } from './operation-dispatcher';

/** `POST {api}/batch` (docs/api.md §18): many writes through their own routes in one request. */
@Module({
  imports: [WritesModule],
  controllers: [BatchController],
  providers: [BatchService, OperationDispatcher],
})
export class BatchModule {}
