import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { appConfig } from '../../config/app.config';
import { FailOpenThrottlerStorage } from './fail-open-throttler.storage';

/**
 * Requests per client (IP) per minute, RATE_LIMIT_PER_MINUTE (0 = off).
 * In memory by default; in Redis when REDIS_URL is set, so several instances
 * share one budget per client.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: ConfigType<typeof appConfig>) => ({
        throttlers: [
          { name: 'default', ttl: 60_000, limit: Math.max(config.rateLimitPerMinute, 1) },
        ],
        skipIf: () => config.rateLimitPerMinute === 0,
        storage: config.redisUrl
          ? new FailOpenThrottlerStorage(
              new ThrottlerStorageRedisService(
                // Fail fast when Redis is down instead of queueing commands (and requests).
                new Redis(config.redisUrl, {
                  enableOfflineQueue: false,
                  maxRetriesPerRequest: 1,
                  connectTimeout: 1000,
                }),
              ),
            )
          : undefined,
      }),
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
})
export class RateLimitModule {}
