import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { map, Observable } from 'rxjs';
import { JsonBytes, JsonWriter } from '../http/json-writer';
import { requestOrigin } from '../http/request-origin';
import { ListPage, totalPages } from './list-page';

/**
 * Renders every ListPage the same way (docs/api.md §5): the wrapper with
 * `rest_url`, `next_rest_url`, `previous_rest_url`, `total`, `total_pages`,
 * and the `X-Total`, `X-TotalPages` and `Link` headers. The wrapper is
 * written as JSON here (the bytes JSON.stringify makes of it), so records a
 * list keeps encoded (shareJson) are taken as their bytes.
 */
@Injectable()
export class ListPageInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    return next
      .handle()
      .pipe(
        map((result: unknown) =>
          result instanceof ListPage
            ? renderListPage(result, http.getRequest<Request>(), http.getResponse<Response>())
            : result,
        ),
      );
  }
}

export function renderListPage(list: ListPage<unknown>, req: Request, res: Response): JsonBytes {
  const { page, perPage } = list.window;
  const pages = totalPages(list.total, perPage);
  const url = (p: number | undefined) => pageUrl(req, p);
  const next = page < pages ? url(page + 1) : undefined;
  const previous =
    page > 1 && page - 1 <= Math.max(pages, 1)
      ? url(page - 1 > 1 ? page - 1 : undefined)
      : undefined;

  res.setHeader('X-Total', String(list.total));
  res.setHeader('X-TotalPages', String(pages));
  const links = [next && `<${next}>; rel="next"`, previous && `<${previous}>; rel="prev"`].filter(
    Boolean,
  );
  if (links.length > 0) res.setHeader('Link', links.join(', '));

  const wrapper = {
    [list.key]: list.items,
    rest_url: url(page),
    ...(next ? { next_rest_url: next } : {}),
    ...(previous ? { previous_rest_url: previous } : {}),
    total: list.total,
    total_pages: pages,
    ...(list.withFeed ? { ical_url: feedUrl(req) } : {}),
  };
  const out = new JsonWriter();
  out.object(wrapper, {
    [list.key]: (items: unknown[]) => out.array(items, (item) => out.value(item)),
  });
  return new JsonBytes(out.bytes());
}

/** Parameters never repeated in a page URL: a URL ends up in logs, caches and browser history. */
const SECRET_PARAMS = new Set(['password']);

/**
 * The list's iCalendar feed: `<path>.ics` with the same parameters but the
 * paging ones and `password` (a feed link is made to be shared).
 */
export function feedUrl(req: Request): string {
  const [base, query = ''] = pageUrl(req, undefined).split('?');
  const kept = query
    .split('&')
    .filter((pair) => pair !== '' && !/^(per_page|password)=/.test(pair));
  return `${base}.ics${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
}

/**
 * The absolute URL of the request with the parameters the caller sent
 * (`password` left out), lists comma-joined, and `page` set (or left out for
 * the first page of a previous link).
 */
export function pageUrl(req: Request, page: number | undefined): string {
  const path = req.originalUrl.split('?')[0];
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(req.query)) {
    if (key === 'page' || SECRET_PARAMS.has(key)) continue;
    const text = Array.isArray(value)
      ? value.filter((v) => typeof v === 'string' || typeof v === 'number').join(',')
      : typeof value === 'string'
        ? value
        : undefined;
    if (text !== undefined) pairs.push(`${encodeURIComponent(key)}=${encodeQueryValue(text)}`);
  }
  if (page !== undefined) pairs.push(`page=${page}`);
  const query = pairs.length > 0 ? `?${pairs.join('&')}` : '';
  return `${requestOrigin(req)}${path}${query}`;
}

/** Percent-encodes a value but keeps commas readable (`categories=1,2`). */
function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(/%2C/gi, ',');
}
