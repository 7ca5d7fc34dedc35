import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';

/**
 * Wraps a shared (Redis) rate-limit store so that an outage of the store lets
 * requests through instead of failing them: rate limiting protects the
 * service, it must not become the reason it is down.
 */
export class FailOpenThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private lastWarning = 0;

  /** `close` releases the store's connection when the application shuts down. */
  constructor(
    private readonly inner: ThrottlerStorage,
    private readonly close?: () => void,
  ) {}

  onApplicationShutdown(): void {
    this.close?.();
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    try {
      return await this.inner.increment(key, ttl, limit, blockDuration, throttlerName);
    } catch (error) {
      if (Date.now() - this.lastWarning > 60_000) {
        this.lastWarning = Date.now();
        this.logger.warn(`rate-limit store unavailable, not limiting: ${(error as Error).message}`);
      }
      return {
        totalHits: 0,
        timeToExpire: Math.ceil(ttl / 1000),
        isBlocked: false,
        timeToBlockExpire: 0,
      };
    }
  }
}
