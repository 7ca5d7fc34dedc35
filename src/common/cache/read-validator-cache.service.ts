import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { DateTime } from 'luxon';
import type { KeptAnswer } from '../http/conditional-get';
import type { RequestContext } from '../http/request-context';
import { appConfig } from '../../config/app.config';
import { CacheStats } from '../../metrics/signals';
import { VersionStampedLru } from './version-stamped-lru';

const MAX_ENTRIES = 5000;
/** Kept answers: at most this many, of at most MAX_KEPT_BYTES each (≤ 64 MB, ≈ 10 MB at ~10 kB a record). */
const MAX_KEPT_ANSWERS = 1000;
export const MAX_KEPT_BYTES = 64 * 1024;

/** What a 304 needs of the 200 it stands for: the tag and the list headers. */
export interface StoredValidator {
  etag: string;
  headers: ReadonlyArray<readonly [string, string]>;
}

/**
 * The ETags of recent 200 reads, per request, caller, language, host and
 * site day, stamped with the data version they were rendered at
 * (docs/api.md §11): while the version holds, a matching If-None-Match is
 * answered 304 without running the handler. Only for routes whose answers
 * change with API writes and the site day alone (see @CachedValidators).
 */
@Injectable()
export class ReadValidatorCache {
  /** The clock; tests move it. */
  now: () => number = Date.now;
  private readonly validators = new VersionStampedLru<StoredValidator>(
    MAX_ENTRIES,
    () => this.now(),
    new CacheStats('read_validators'),
  );
  /** Anonymous 200 answers of single-record reads, by the same keys (see keepsAnswers). */
  private readonly answers = new VersionStampedLru<KeptAnswer>(MAX_KEPT_ANSWERS, () => this.now());
  private day = '';
  private dayEnds = 0;

  constructor(@Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>) {}

  /**
   * The key of a read. The site day is part of it because default date
   * windows (`/events`: yesterday 00:00 to the end of the day 24 months on)
   * move at midnight in SITE_TIMEZONE.
   */
  keyOf(url: string, ctx: RequestContext): string {
    const caller = ctx.user ? `${ctx.user.id}:${ctx.user.role}` : '-';
    return `${this.siteDay()} ${ctx.language} ${caller} ${ctx.apiUrl} ${url}`;
  }

  get(key: string, version: number): StoredValidator | undefined {
    return this.validators.get(key, version);
  }

  set(key: string, validator: StoredValidator, version: number): void {
    this.validators.set(key, validator, version);
  }

  keptAnswer(key: string, version: number): KeptAnswer | undefined {
    return this.answers.get(key, version);
  }

  keepAnswer(key: string, answer: KeptAnswer, version: number): void {
    if (answer.body.length <= MAX_KEPT_BYTES) this.answers.set(key, answer, version);
  }

  private siteDay(): string {
    const now = this.now();
    if (now >= this.dayEnds) {
      const today = DateTime.fromMillis(now, { zone: this.config.siteTimezone });
      this.day = today.toISODate() ?? '';
      this.dayEnds = today.endOf('day').toMillis() + 1;
    }
    return this.day;
  }
}
