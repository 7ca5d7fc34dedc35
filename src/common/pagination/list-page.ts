import { ApiError } from '../errors/api-error';
import { ErrorKey } from '../errors/error-codes';

/** The window of one page of a list. */
export interface PageWindow {
  page: number;
  perPage: number;
  offset: number;
}

export function pageWindow(
  query: { page?: number; per_page?: number },
  maxPerPage: number,
): PageWindow {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? 10, maxPerPage);
  return { page, perPage, offset: (page - 1) * perPage };
}

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

/** Events, venues and organizers answer 404 for a page > 1 past the end (docs/api.md §5). */
export function assertPageExists(window: PageWindow, total: number, error: ErrorKey): void {
  if (window.page > 1 && window.page > totalPages(total, window.perPage)) throw new ApiError(error);
}

/**
 * What a service returns for a list; the ListPageInterceptor turns it into
 * the contract's wrapper with links and headers.
 */
export class ListPage<T> {
  constructor(
    /** The wrapper's member name: events, venues, organizers, categories, tags. */
    readonly key: string,
    readonly items: T[],
    readonly total: number,
    readonly window: PageWindow,
    /** The list has an iCalendar feed (`<path>.ics`, same filters, unpaged): the wrapper carries `ical_url`. */
    readonly withFeed = false,
  ) {}
}
