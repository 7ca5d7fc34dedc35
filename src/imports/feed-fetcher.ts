import { IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  hostOf,
  pinnedLookup,
  requestProblem,
  TargetNotAllowedError,
  type TargetPolicy,
} from '../common/net/target-safety';

/*
 * Fetches an import's feed URL with the webhooks' address rules (docs/webhooks.md,
 * docs/api.md "Imports (draft: parsing rules)"): https only unless
 * WEBHOOK_ALLOW_HTTP, no internal address unless WEBHOOK_ALLOW_PRIVATE_TARGETS,
 * the name resolved once and the connection made to exactly the checked
 * address, every redirect checked again (at most 3), the size limit enforced
 * while the body streams, one time limit for the whole fetch, and a
 * conditional GET (If-None-Match / If-Modified-Since) whose 304 is understood.
 * Never throws: every failure is a result with its reason.
 */

export interface FetchFeedOptions extends TargetPolicy {
  /** Bytes of the body (default 10 MiB): past it the fetch stops, `too_large`. */
  maxBytes?: number;
  /** The whole fetch, redirects included (default 30 s). */
  timeoutMs?: number;
  /** Redirects followed (default 3). */
  maxRedirects?: number;
  /** The ETag of the last fetch: sent as If-None-Match. */
  etag?: string | null;
  /** The Last-Modified of the last fetch: sent as If-Modified-Since. */
  lastModified?: string | null;
  /** Takes the body chunk by chunk (an IcalImportParser): the result then holds no body. */
  sink?: { push(chunk: Buffer): void };
}

export type FetchFailure =
  | 'invalid_url'
  | 'http_not_allowed'
  | 'private_target'
  | 'too_many_redirects'
  | 'too_large'
  | 'timeout'
  | 'http_status'
  | 'network';

export type FetchFeedResult =
  | {
      kind: 'fetched';
      /** The body, or null when it went to `sink`. */
      body: Buffer | null;
      bytes: number;
      /** The URL the body came from (after redirects). */
      url: string;
      etag: string | null;
      lastModified: string | null;
      contentType: string | null;
    }
  | { kind: 'not_modified'; url: string; etag: string | null; lastModified: string | null }
  | {
      kind: 'failed';
      reason: FetchFailure;
      /** In English, at most 255 characters. */
      detail: string;
      /** The HTTP status, for `http_status`. */
      status: number | null;
    };

export const FEED_FETCH_DEFAULTS = {
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRedirects: 3,
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_URL = 2000;
const MAX_HEADER = 1000;

type Failed = Extract<FetchFeedResult, { kind: 'failed' }>;

const failure = (reason: FetchFailure, detail: string, status: number | null = null): Failed => ({
  kind: 'failed',
  reason,
  detail: detail.slice(0, 255),
  status,
});

/** Why a URL (the first, or a redirect's) may not be fetched, or its parsed form. */
export function fetchableUrl(raw: string, policy: TargetPolicy, base?: URL): URL | Failed {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return failure('invalid_url', 'not a URL');
  }
  if (url.href.length > MAX_URL) return failure('invalid_url', 'the URL is too long');
  if (url.username !== '' || url.password !== '') {
    return failure('invalid_url', 'the URL must not hold a user or password');
  }
  switch (requestProblem(url, policy)) {
    case 'scheme':
      return failure('invalid_url', 'only http(s) URLs are fetched');
    case 'http':
      return failure(
        'http_not_allowed',
        'plain http:// is not allowed (WEBHOOK_ALLOW_HTTP is off)',
      );
    case 'private':
      return failure('private_target', new TargetNotAllowedError(hostOf(url)).message);
    default:
      return url;
  }
}

export async function fetchFeed(raw: string, options: FetchFeedOptions): Promise<FetchFeedResult> {
  const limits = { ...FEED_FETCH_DEFAULTS, ...stripUndefined(options) };
  const deadline = Date.now() + limits.timeoutMs;
  let url = fetchableUrl(raw, options);
  for (let redirects = 0; ; redirects += 1) {
    if (!(url instanceof URL)) return url;
    const left = deadline - Date.now();
    if (left <= 0) return failure('timeout', `no answer within ${limits.timeoutMs} ms`);
    const answer = await requestOnce(url, options, limits.maxBytes, left, limits.timeoutMs);
    if (answer.kind !== 'redirect') return answer;
    if (redirects >= limits.maxRedirects) {
      return failure('too_many_redirects', `more than ${limits.maxRedirects} redirects`);
    }
    url = fetchableUrl(answer.location, options, url);
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

type Answer = FetchFeedResult | { kind: 'redirect'; location: string };

function requestOnce(
  url: URL,
  options: FetchFeedOptions,
  maxBytes: number,
  timeoutMs: number,
  totalMs: number,
): Promise<Answer> {
  const headers: Record<string, string> = {
    accept: 'text/calendar, */*;q=0.5',
    'accept-encoding': 'identity',
    'user-agent': 'calendar-events-service feed import',
  };
  if (options.etag) headers['if-none-match'] = options.etag.slice(0, MAX_HEADER);
  if (options.lastModified)
    headers['if-modified-since'] = options.lastModified.slice(0, MAX_HEADER);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(answer);
    };
    const req = send(url, { method: 'GET', agent: false, headers, ...pinnedLookup(options) });
    const timer = setTimeout(
      () => finish(failure('timeout', `no answer within ${totalMs} ms`)),
      timeoutMs,
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof TargetNotAllowedError) finish(failure('private_target', error.message));
      else
        finish(failure('network', error.code ? `${error.code}: ${error.message}` : error.message));
    });
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const header = (name: string) => {
        const value = res.headers[name];
        return typeof value === 'string' ? value.slice(0, MAX_HEADER) : null;
      };
      const validators = { etag: header('etag'), lastModified: header('last-modified') };
      if (REDIRECTS.has(status) && header('location')) {
        finish({ kind: 'redirect', location: header('location') as string });
        return;
      }
      if (status === 304) {
        finish({ kind: 'not_modified', url: url.href, ...validators });
        return;
      }
      if (status < 200 || status > 299) {
        finish(failure('http_status', `the server answered ${status}`, status));
        return;
      }
      const declared = Number(header('content-length'));
      if (Number.isFinite(declared) && declared > maxBytes) {
        finish(failure('too_large', `the body is over ${maxBytes} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxBytes) {
          finish(failure('too_large', `the body is over ${maxBytes} bytes`));
          return;
        }
        if (options.sink) options.sink.push(chunk);
        else chunks.push(chunk);
      });
      res.on('end', () =>
        finish({
          kind: 'fetched',
          body: options.sink ? null : Buffer.concat(chunks),
          bytes,
          url: url.href,
          ...validators,
          contentType: header('content-type'),
        }),
      );
      res.on('error', (error) => finish(failure('network', error.message)));
      res.on('close', () => {
        if (!res.complete) finish(failure('network', 'the connection closed mid-body'));
      });
    });
    req.end();
  });
}
