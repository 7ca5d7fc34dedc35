import { Global, Module } from '@nestjs/common';
import { CountCacheService } from './count-cache.service';
import { DataVersionService } from './data-version.service';
import { VersionedCacheService } from './versioned-cache.service';

/** The shared data version, the list count cache and the versioned cache; WriteVersionInterceptor is registered in AppModule. */
@Global()
@Module({
  providers: [DataVersionService, CountCacheService, VersionedCacheService],
  exports: [CountCacheService, DataVersionService, VersionedCacheService],
})
export class CacheModule {}
