import { SetMetadata } from '@nestjs/common';

export const CACHED_VALIDATORS = 'cachedValidators';

export interface CachedValidatorsOptions {
  /**
   * The handler writes its answer itself (`@Res()`, e.g. a streamed
   * iCalendar feed) and reports its ETag with `reportEntityTag`: a 304 from
   * the cache is then sent by the interceptor, as Nest sends nothing.
   */
  writesResponse?: boolean;
  /**
   * A single record's read: the bytes of its anonymous 200 answers are kept
   * with their tag (ReadValidatorCache.answers), so a repeated read is a data
   * version check and a send.
   */
  keepsAnswers?: boolean;
  /**
   * The handler reads the data version in the statement that reads its
   * content, or before it (the events list: DataVersionService.provide).
   * A request without If-None-Match then has nothing to decide first, and its
   * ETag is remembered with the version the handler read: one round trip
   * less. Not with `keepsAnswers`.
   */
  readsVersionWithContent?: boolean;
}

/**
 * Marks a controller (or handler) whose GET answers depend only on data that writes
 * change (each bumps the data version: tracked writes, among them the
 * recurrence horizon job, in their own transaction; other API writes and the
 * changes feed's retention purge after it) and on the site day, so a 304 may
 * be decided from ReadValidatorCache without running the handler. Not for
 * answers that move otherwise (webhook delivery logs, health).
 */
export const CachedValidators = (options: CachedValidatorsOptions = {}) =>
  SetMetadata(CACHED_VALIDATORS, options);
