import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchableUrl, fetchFeed, type FetchFeedOptions } from '../../../src/imports/feed-fetcher';
import { IcalImportParser } from '../../../src/imports/ical-import-parser';
import { fixture } from './ical-fixtures';

/*
 * The feed fetcher against a real HTTP server on 127.0.0.1, with the
 * private-target check switched as the webhook tests switch it: off to reach
 * the server at all, on to prove nothing reaches it.
 */

type Route = (res: ServerResponse, headers: IncomingHttpHeaders) => void;

let server: Server;
let base: string;
const routes = new Map<string, Route>();
const received: Array<{ path: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push({ path: req.url ?? '', headers: req.headers });
    const route = routes.get(req.url ?? '');
    if (route) route(res, req.headers);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  routes.clear();
  received.length = 0;
});

const local: FetchFeedOptions = { allowHttp: true, allowPrivateTargets: true };
const strict: FetchFeedOptions = { allowHttp: true, allowPrivateTargets: false };
const FEED = fixture('calendar-service.ics');

function serveFeed(
  path: string,
  validators = { etag: '"v1"', modified: 'Sat, 28 Nov 2026 09:30:00 GMT' },
) {
  routes.set(path, (res, headers) => {
    if (headers['if-none-match'] === validators.etag) {
      res.writeHead(304, { ETag: validators.etag }).end();
      return;
    }
    res
      .writeHead(200, {
        'Content-Type': 'text/calendar; charset=utf-8',
        ETag: validators.etag,
        'Last-Modified': validators.modified,
      })
      .end(FEED);
  });
}

describe('feed fetcher', () => {
  it('fetches a feed with its validators, and understands 304 for a conditional GET', async () => {
    serveFeed('/feed.ics');
    const first = await fetchFeed(`${base}/feed.ics`, local);
    expect(first).toEqual({
      kind: 'fetched',
      body: FEED,
      bytes: FEED.length,
      url: `${base}/feed.ics`,
      etag: '"v1"',
      lastModified: 'Sat, 28 Nov 2026 09:30:00 GMT',
      contentType: 'text/calendar; charset=utf-8',
    });
    const again = await fetchFeed(`${base}/feed.ics`, {
      ...local,
      etag: '"v1"',
      lastModified: 'Sat, 28 Nov 2026 09:30:00 GMT',
    });
    expect(again).toEqual({
      kind: 'not_modified',
      url: `${base}/feed.ics`,
      etag: '"v1"',
      lastModified: null,
    });
    expect(received[1].headers).toEqual(
      expect.objectContaining({
        'if-none-match': '"v1"',
        'if-modified-since': 'Sat, 28 Nov 2026 09:30:00 GMT',
      }),
    );
    expect(received[0].headers['if-none-match']).toBeUndefined();
  });

  it('streams the body into a parser without keeping it', async () => {
    serveFeed('/feed.ics');
    const parser = new IcalImportParser({ defaultZone: 'Europe/Amsterdam' });
    const result = await fetchFeed(`${base}/feed.ics`, { ...local, sink: parser });
    expect(result).toEqual(
      expect.objectContaining({ kind: 'fetched', body: null, bytes: FEED.length }),
    );
    expect(parser.finish().items.map((item) => item.uid)).toEqual([
      '12@calendar.test',
      '12@calendar.test',
      '15@calendar.test',
      '16@calendar.test',
    ]);
  });

  it('refuses internal targets before connecting, by address and by a name that resolves to one', async () => {
    serveFeed('/feed.ics');
    const port = (server.address() as AddressInfo).port;
    for (const url of [
      `http://127.0.0.1:${port}/feed.ics`,
      `http://[::1]:${port}/feed.ics`,
      `http://[::ffff:127.0.0.1]:${port}/feed.ics`,
      `http://2130706433:${port}/feed.ics`,
      `http://169.254.169.254/latest/meta-data/`,
      `http://localhost:${port}/feed.ics`,
    ]) {
      const result = await fetchFeed(url, strict);
      expect([url, result]).toEqual([
        url,
        {
          kind: 'failed',
          reason: 'private_target',
          detail: expect.stringMatching(/is not a public address$/),
          status: null,
        },
      ]);
    }
    expect(received).toEqual([]);
  });

  it('refuses plain http:// unless allowed, and URLs that are no http(s) or hold a password', async () => {
    const https = { allowHttp: false, allowPrivateTargets: false };
    expect(await fetchFeed(`${base}/feed.ics`, https)).toEqual({
      kind: 'failed',
      reason: 'http_not_allowed',
      detail: 'plain http:// is not allowed (WEBHOOK_ALLOW_HTTP is off)',
      status: null,
    });
    for (const url of [
      'ftp://example.org/feed.ics',
      'file:///etc/passwd',
      'https://u:p@example.org/',
      'not a url',
    ]) {
      expect(await fetchFeed(url, local)).toEqual(
        expect.objectContaining({ kind: 'failed', reason: 'invalid_url' }),
      );
    }
    expect(received).toEqual([]);
  });

  it('follows up to three redirects, each checked again, and refuses a fourth', async () => {
    serveFeed('/feed.ics');
    routes.set('/r1', (res) => res.writeHead(301, { Location: '/r2' }).end());
    routes.set('/r2', (res) => res.writeHead(302, { Location: `${base}/r3` }).end());
    routes.set('/r3', (res) => res.writeHead(307, { Location: '/feed.ics' }).end());
    routes.set('/r0', (res) => res.writeHead(308, { Location: '/r1' }).end());
    const followed = await fetchFeed(`${base}/r1`, local);
    expect(followed).toEqual(expect.objectContaining({ kind: 'fetched', url: `${base}/feed.ics` }));
    expect(received.map((r) => r.path)).toEqual(['/r1', '/r2', '/r3', '/feed.ics']);
    received.length = 0;
    expect(await fetchFeed(`${base}/r0`, local)).toEqual({
      kind: 'failed',
      reason: 'too_many_redirects',
      detail: 'more than 3 redirects',
      status: null,
    });
    expect(received.map((r) => r.path)).toEqual(['/r0', '/r1', '/r2', '/r3']);
  });

  it('checks a redirect target like the first URL: internal, plain http and other schemes refused', () => {
    const from = new URL('https://calendar.example.org/feed.ics');
    const policy = { allowHttp: false, allowPrivateTargets: false };
    expect(fetchableUrl('http://10.1.2.3/feed.ics', { ...policy, allowHttp: true }, from)).toEqual(
      expect.objectContaining({ reason: 'private_target' }),
    );
    expect(fetchableUrl('https://[fd00:ec2::254]/', policy, from)).toEqual(
      expect.objectContaining({ reason: 'private_target' }),
    );
    expect(fetchableUrl('http://calendar.example.org/feed.ics', policy, from)).toEqual(
      expect.objectContaining({ reason: 'http_not_allowed' }),
    );
    expect(fetchableUrl('ftp://calendar.example.org/', policy, from)).toEqual(
      expect.objectContaining({ reason: 'invalid_url' }),
    );
    expect(String(fetchableUrl('/other.ics', policy, from))).toBe(
      'https://calendar.example.org/other.ics',
    );
  });

  it('stops reading a body over the size limit, declared or streamed', async () => {
    routes.set('/declared', (res) =>
      res.writeHead(200, { 'Content-Length': String(2048) }).end(Buffer.alloc(2048, 'x')),
    );
    routes.set('/chunked', (res) => {
      res.writeHead(200);
      let sent = 0;
      const more = () => {
        // Far more than the limit would be sent if the client kept reading.
        if (sent >= 64 || res.destroyed) return res.end();
        sent += 1;
        res.write(Buffer.alloc(1024, 'y'), more);
      };
      more();
    });
    for (const path of ['/declared', '/chunked']) {
      expect(await fetchFeed(`${base}${path}`, { ...local, maxBytes: 1500 })).toEqual({
        kind: 'failed',
        reason: 'too_large',
        detail: 'the body is over 1500 bytes',
        status: null,
      });
    }
  });

  it('gives up after the time limit, and reports an error status', async () => {
    routes.set('/slow', (res) => {
      res.writeHead(200);
      res.write('BEGIN:VCALENDAR\r\n');
      // Never ends.
    });
    routes.set('/gone', (res) => res.writeHead(410).end('gone'));
    const started = Date.now();
    expect(await fetchFeed(`${base}/slow`, { ...local, timeoutMs: 300 })).toEqual({
      kind: 'failed',
      reason: 'timeout',
      detail: 'no answer within 300 ms',
      status: null,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await fetchFeed(`${base}/gone`, local)).toEqual({
      kind: 'failed',
      reason: 'http_status',
      detail: 'the server answered 410',
      status: 410,
    });
  });
});
