import { Global, Module } from '@nestjs/common';
import { CountCacheService } from './count-cache.service';
import { DataVersionService } from './data-version.service';
import { ReadValidatorCache } from './read-validator-cache.service';
import { VersionedCacheService } from './versioned-cache.service';

/**
 * The shared data version and the caches keyed by it: list counts, linked
 * records, read validators. WriteVersionInterceptor and ReadValidatorInterceptor
 * are registered in AppModule.
 */
@Global()
@Module({
  providers: [DataVersionService, CountCacheService, VersionedCacheService, ReadValidatorCache],
  exports: [CountCacheService, DataVersionService, VersionedCacheService, ReadValidatorCache],
})
export class CacheModule {}
