import type { Request, Response } from 'express';
import { reportEntityTag, setCachingHeaders } from '../common/http/conditional-get';

/*
 * The HTTP side of a calendar answer: validators and caching headers as in
 * docs/api.md §11 (shared with every other GET), 304 when If-None-Match holds, and a streamed body that
 * respects backpressure and stops reading when the client goes away.
 */

/**
 * Sets ETag, Cache-Control and Vary as every GET does (src/common/http/conditional-get.ts);
 * answers 304 (If-None-Match holds) or a HEAD request at once. True when the
 * caller should now send the body. The tag goes to the validator cache
 * (ReadValidatorInterceptor) on routes that use it.
 */
export function sendHeadersOr304(req: Request, res: Response, etag: string): boolean {
  reportEntityTag(res, etag);
  if (setCachingHeaders(req, res, etag)) {
    res.status(304).end();
    return false;
  }
  res.status(200).setHeader('Content-Type', 'text/calendar; charset=utf-8');
  if (req.method === 'HEAD') {
    res.end();
    return false;
  }
  return true;
}

/**
 * Writes the pieces as they come: waits for `drain` when the socket's buffer
 * is full, and stops asking for pieces (so stops reading the database) once
 * the client has gone. An error after the headers went out can only cut the
 * answer short: the connection is destroyed, so the client sees it incomplete.
 */
export function streamTo(
  res: Response,
  pieces: AsyncGenerator<string | Buffer>,
  onError: (error: Error) => void,
): void {
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  void (async () => {
    try {
      for await (const piece of pieces) {
        if (closed) break;
        if (!res.write(piece)) await drainedOrClosed(res);
        if (closed) break;
      }
      if (!closed) res.end();
    } catch (error) {
      onError(error as Error);
      res.destroy();
    }
  })();
}

function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
