import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { CountCacheService } from './count-cache.service';
import { DataVersionService } from './data-version.service';
import { WriteVersionInterceptor } from './write-version.interceptor';

@Global()
@Module({
  providers: [
    DataVersionService,
    CountCacheService,
    { provide: APP_INTERCEPTOR, useClass: WriteVersionInterceptor },
  ],
  exports: [CountCacheService, DataVersionService],
})
export class CacheModule {}
