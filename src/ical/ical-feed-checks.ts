import { DateTime } from 'luxon';
import { ApiError } from '../common/errors/api-error';
import { entityTag } from '../common/http/entity-tags';
import type { EventListFilters } from '../events/event-list-query';
import type { IcalFeedQueryDto } from './dto/ical-query.dto';

/* What a feed's request is checked and tagged by before a byte of it is sent (docs/api.md §14). */

/** Default window of a feed: from 30 days back (docs/api.md §14); the end is the list's (24 months). */
const DEFAULT_DAYS_BACK = 30;
const MAX_WINDOW_YEARS = 10;

/**
 * A strong validator of everything a feed's body depends on. Not a record's
 * tag (recordTag): a streamed feed cannot hash its bytes before it sends
 * them, so it hashes what they are written from (ical-feed-tag.ts).
 */
export function strongTag(parts: unknown): string {
  return entityTag(JSON.stringify(parts));
}

/**
 * The feed's default window: `start_date` 30 days before today (site zone)
 * unless a lower date filter or `starts_*`/`ends_*` is sent; `end_date`
 * defaults as in lists (24 months ahead).
 */
export function withFeedWindow(query: IcalFeedQueryDto, today: DateTime): IcalFeedQueryDto {
  const { start_date, starts_before, starts_after, ends_before, ends_after } = query;
  if (
    [start_date, starts_before, starts_after, ends_before, ends_after].some((v) => v !== undefined)
  )
    return query;
  return {
    ...query,
    start_date: today.minus({ days: DEFAULT_DAYS_BACK }).toFormat('yyyy-MM-dd'),
  };
}

/** A window without both ends, or longer than 10 years → 400 naming `end_date`. */
export function assertWindow({ window }: EventListFilters): void {
  const from = window.startMin ?? window.endMin;
  const to = window.endMax ?? window.startMax;
  if (
    from === undefined ||
    to === undefined ||
    DateTime.fromSeconds(from, { zone: 'utc' }).plus({ years: MAX_WINDOW_YEARS }).toSeconds() < to
  ) {
    throw ApiError.invalid('end_date', 'feedWindow');
  }
}

/**
 * A feed holding more events than ICAL_MAX_EVENTS → 400 before a byte is
 * sent: one anonymous request could otherwise keep a core busy for minutes.
 * `events`: the events the filters match, as `/events` counts them.
 */
export function assertFeedSize(events: number, limit: number): void {
  if (events > limit) {
    throw new ApiError('rest_feed_too_large', {
      args: { events, limit },
      data: { events, limit },
    });
  }
}
