import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import {
  DEFAULT_IPV6_SUBNET_PREFIX,
  getStorageToken,
  normalizeIp,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request } from 'express';
import { appConfig } from '../../config/app.config';

/** The window of RATE_LIMIT_PER_MINUTE. */
export const RATE_WINDOW_MS = 60_000;

/** One budget per client and throttler for the whole API (RateLimitModule's generateKey). */
export function rateLimitKey(name: string, tracker: string): string {
  return `calendar-rate:${name}:${tracker}`;
}

/**
 * A batch operation's request whose hit OperationRateLimit counted already
 * (a bulk run that then ran operation by operation): the guard lets it pass
 * uncounted, so each operation counts once, as alone.
 */
export interface CountedRequest {
  rateCounted?: boolean;
}

export function countedAlready(context: ExecutionContext): boolean {
  return context.switchToHttp().getRequest<CountedRequest>().rateCounted === true;
}

/**
 * Counts batch operations that do not pass through the route stack (a bulk
 * run of creates, docs/api.md §18) against the caller's budget, as
 * ThrottlerGuard counts a request: same store, key, window and limit.
 */
@Injectable()
export class OperationRateLimit {
  constructor(
    @Inject(getStorageToken()) private readonly storage: ThrottlerStorage,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
  ) {}

  /** Counts one request of `from`'s client; false when it is over the budget (the guard's 429). */
  async count(from: Request): Promise<boolean> {
    if (this.config.rateLimitPerMinute === 0) return true;
    const tracker = normalizeIp(from.ip ?? '', DEFAULT_IPV6_SUBNET_PREFIX);
    const { isBlocked } = await this.storage.increment(
      rateLimitKey('default', tracker),
      RATE_WINDOW_MS,
      Math.max(this.config.rateLimitPerMinute, 1),
      RATE_WINDOW_MS,
      'default',
    );
    return !isBlocked;
  }
}
