import { SetMetadata } from '@nestjs/common';

export const CACHED_VALIDATORS = 'cachedValidators';

/**
 * Marks a controller whose GET answers depend only on data that writes
 * change (each bumps the data version: API writes, the recurrence horizon
 * job, the changes feed's retention purge) and on the site day, so a 304 may
 * be decided from ReadValidatorCache without running the handler. Not for
 * answers that move otherwise (webhook delivery logs, health).
 */
export const CachedValidators = () => SetMetadata(CACHED_VALIDATORS, true);
