import { ExecutionContext, SetMetadata } from '@nestjs/common';

const FEED_RATE_LIMIT = 'feedRateLimit';

/**
 * Marks a handler whose answers are counted against the per-client feed
 * budget (ICAL_RATE_LIMIT_PER_MINUTE) beside the global one: a feed costs
 * far more than a page of a list.
 */
export const FeedRateLimit = () => SetMetadata(FEED_RATE_LIMIT, true);

export function isFeedRoute(context: ExecutionContext): boolean {
  return Reflect.getMetadata(FEED_RATE_LIMIT, context.getHandler()) === true;
}
