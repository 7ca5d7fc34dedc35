import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** One feed the server answers on a path. */
export interface Feed {
  body: string;
  /** Sent as ETag; a request whose If-None-Match equals it gets 304. */
  etag?: string;
  status?: number;
  /** Milliseconds before the answer (lets runs of two instances overlap). */
  delayMs?: number;
}

/**
 * A real HTTP server on 127.0.0.1 serving iCalendar feeds for import tests:
 * it answers each path with its feed (304 when If-None-Match holds, 404 for
 * unknown paths) and records every request with its headers.
 */
export class FeedServer {
  readonly requests: Array<{ path: string; headers: IncomingHttpHeaders; status: number }> = [];
  private readonly feeds = new Map<string, Feed>();
  private server: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      const feed = this.feeds.get(path);
      const status = !feed
        ? 404
        : feed.etag !== undefined && req.headers['if-none-match'] === feed.etag
          ? 304
          : (feed.status ?? 200);
      this.requests.push({ path, headers: req.headers, status });
      setTimeout(() => {
        const headers: Record<string, string> = { 'content-type': 'text/calendar; charset=utf-8' };
        if (feed?.etag !== undefined) headers.etag = feed.etag;
        res.writeHead(status, headers);
        res.end(status === 200 ? feed?.body : undefined);
      }, feed?.delayMs ?? 0);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  serve(path: string, feed: Feed): void {
    this.feeds.set(path, feed);
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): FeedServer['requests'] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A small calendar of `count` one-off events, `tag` in each UID and title. */
export function feedOf(tag: string, count = 2): string {
  const events = Array.from({ length: count }, (_, i) =>
    [
      'BEGIN:VEVENT',
      `UID:${tag}-${i + 1}@feed.test`,
      'DTSTAMP:20261128T100000Z',
      `DTSTART:2027060${(i % 9) + 1}T180000Z`,
      `DTEND:2027060${(i % 9) + 1}T200000Z`,
      `SUMMARY:${tag} ${i + 1}`,
      'END:VEVENT',
    ].join('\r\n'),
  );
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//feed.test//EN',
    ...events,
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}
