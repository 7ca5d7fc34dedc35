import type { Request, Response } from 'express';

/*
 * The HTTP side of a calendar answer: validators and caching headers as in
 * docs/api.md §11, 304 when If-None-Match holds, and a streamed body that
 * respects backpressure and stops reading when the client goes away.
 */

/**
 * Sets ETag, Cache-Control and Vary; answers 304 (If-None-Match holds) or a
 * HEAD request at once. True when the caller should now send the body.
 */
export function sendHeadersOr304(req: Request, res: Response, etag: string): boolean {
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', `no-cache, ${req.headers.authorization ? 'private' : 'public'}`);
  res.setHeader('Vary', 'Accept-Language, Authorization');
  if (ifNoneMatchHolds(req.headers['if-none-match'], etag)) {
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

/** `*`, or one of a comma list of tags equal to ours under weak comparison (RFC 9110 §13.1.2). */
export function ifNoneMatchHolds(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const ours = etag.replace(/^W\//, '');
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag.replace(/^W\//, '') === ours);
}

/**
 * Writes the pieces as they come: waits for `drain` when the socket's buffer
 * is full, and stops asking for pieces (so stops reading the database) once
 * the client has gone. An error after the headers went out can only cut the
 * answer short: the connection is destroyed, so the client sees it incomplete.
 */
export function streamTo(
  res: Response,
  pieces: AsyncGenerator<string>,
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
