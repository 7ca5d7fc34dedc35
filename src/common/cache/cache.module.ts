import { Global, Module } from '@nestjs/common';
import { CountCacheService } from './count-cache.service';
import { DataVersionService } from './data-version.service';

/** The shared data version and the list count cache; WriteVersionInterceptor is registered in AppModule. */
@Global()
@Module({
  providers: [DataVersionService, CountCacheService],
  exports: [CountCacheService, DataVersionService],
})
export class CacheModule {}
