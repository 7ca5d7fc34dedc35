import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import { appConfig } from '../../config/app.config';
import { FailOpenThrottlerStorage } from './fail-open-throttler.storage';
import { isFeedRoute } from './feed-rate-limit';
import { countedAlready, RATE_WINDOW_MS, rateLimitKey } from './operation-rate-limit';

/**
 * Requests per client (IP) per minute, RATE_LIMIT_PER_MINUTE (0 = off), and
 * iCalendar feeds per client per minute, ICAL_RATE_LIMIT_PER_MINUTE (0 = only the former).
 * In memory by default; in Redis when REDIS_URL is set, so several instances
 * share one budget per client. Its guard (ThrottlerGuard) is registered in AppModule.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: async (config: ConfigType<typeof appConfig>) => ({
        throttlers: [
          { name: 'default', ttl: RATE_WINDOW_MS, limit: Math.max(config.rateLimitPerMinute, 1) },
          // Feeds (@FeedRateLimit) also count against a smaller budget of their own. A named
          // throttler's skipIf replaces the common one, so it repeats the global switch.
          {
            name: 'feeds',
            ttl: RATE_WINDOW_MS,
            limit: Math.max(config.icalRateLimitPerMinute, 1),
            skipIf: (context) =>
              config.rateLimitPerMinute === 0 ||
              config.icalRateLimitPerMinute === 0 ||
              !isFeedRoute(context),
            // Its 429 carries the API's one Retry-After; no second set of X-RateLimit-* headers.
            setHeaders: false,
          },
        ],
        // A batch operation counted already by a bulk run (OperationRateLimit) counts once.
        skipIf: (context) => config.rateLimitPerMinute === 0 || countedAlready(context),
        // One budget per client for the whole API (the library's default key
        // adds the route, which would give a client the limit on every route).
        generateKey: (_context, tracker, name) => rateLimitKey(name, tracker),
        storage: config.redisUrl ? await redisStorage(config.redisUrl) : undefined,
      }),
    }),
  ],
})
export class RateLimitModule {}

async function redisStorage(url: string): Promise<FailOpenThrottlerStorage> {
  // Loaded only with REDIS_URL: an instance without Redis keeps neither client in memory.
  const [{ default: Redis }, { ThrottlerStorageRedisService }] = await Promise.all([
    import('ioredis'),
    import('@nest-lab/throttler-storage-redis'),
  ]);
  // Fail fast when Redis is down instead of queueing commands (and requests).
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    // How long a closing connection may linger (the default 2 s delays shutdown when Redis is down).
    disconnectTimeout: 200,
  });
  // Without a listener ioredis prints every failed reconnect; the storage logs outages itself.
  redis.on('error', () => undefined);
  // Start counting from the first request when Redis is there; never wait more than a second.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 1000);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', done);
    redis.once('error', done);
  });
  return new FailOpenThrottlerStorage(new ThrottlerStorageRedisService(redis), () =>
    redis.disconnect(),
  );
}
