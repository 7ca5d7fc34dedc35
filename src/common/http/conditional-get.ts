import type { NextFunction, Request, Response } from 'express';
import { noneMatchHolds, parseTagList } from './entity-tags';
import { recordTag } from './record-tag';

/*
 * Conditional reads (docs/api.md §11), once for every route: a strong ETag
 * on every 200 answer to GET/HEAD, the caching headers, and 304 when
 * If-None-Match holds. Express's own weak ETag is switched off (app.setup.ts).
 */

/** What ReadValidatorInterceptor leaves for the `res.send` wrapper. */
interface ConditionalLocals {
  /** The answer is a 304 for this tag, decided before the handler ran. */
  notModifiedTag?: string;
  /** Told the tag and bytes of the 200 this request renders. */
  onTag?: (etag: string, body: string | Buffer) => void;
  /** The 200 is these kept bytes, decided before the handler ran (it does not run). */
  keptAnswer?: KeptAnswer;
}

/** A 200 JSON answer's bytes with their tag, as ReadValidatorInterceptor keeps them. */
export interface KeptAnswer {
  etag: string;
  body: Buffer;
}

const locals = (res: Response) => res.locals as ConditionalLocals;

/**
 * Sets ETag, Cache-Control and Vary as every GET/HEAD answer carries them.
 * True when If-None-Match holds: the caller answers 304 without a body.
 */
export function setCachingHeaders(req: Request, res: Response, etag: string): boolean {
  res.setHeader('ETag', etag);
  // no-cache: caches revalidate every time (cheap with the ETag); private once a token is involved.
  res.setHeader('Cache-Control', `no-cache, ${req.headers.authorization ? 'private' : 'public'}`);
  res.vary('Accept-Language');
  res.vary('Authorization');
  return noneMatchHolds(parseTagList(req.headers['if-none-match']), etag);
}

/** Makes this request's answer a 304 for `etag`, whatever the handler returns (nothing). */
export function answerNotModified(req: Request, res: Response, etag: string): void {
  setCachingHeaders(req, res, etag);
  locals(res).notModifiedTag = etag;
}

/** Makes this request's answer the kept 200 (or a 304 for its tag), whatever the handler returns (nothing). */
export function answerWithKept(res: Response, kept: KeptAnswer): void {
  locals(res).keptAnswer = kept;
}

/** Calls `listener` with the ETag and bytes of the 200 this request renders, if it renders one. */
export function onEntityTag(
  res: Response,
  listener: (etag: string, body: string | Buffer) => void,
): void {
  locals(res).onTag = listener;
}

/**
 * For answers that do not pass through `res.send` (streamed, with their own
 * ETag): tells the `onEntityTag` listener the tag of the 200 they stand for.
 */
export function reportEntityTag(res: Response, etag: string): void {
  locals(res).onTag?.(etag, '');
}

/**
 * Express middleware: wraps `res.send`, which every JSON answer passes
 * through with its serialized bytes (res.json calls it), so the tag is the
 * hash of exactly the bytes sent. Answers that set their own ETag (the
 * iCalendar feeds, which stream) and non-200 answers are left alone.
 */
export function conditionalGet(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return next();
  const send = res.send.bind(res);
  res.send = function sendWithTag(body?: unknown) {
    const { notModifiedTag, onTag, keptAnswer } = locals(res);
    if (notModifiedTag !== undefined && res.statusCode === 200) {
      // Express sends a 304 without body and drops its Content-Type and Content-Length.
      res.status(304);
      return send('');
    }
    if (keptAnswer !== undefined && res.statusCode === 200) {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      if (setCachingHeaders(req, res, keptAnswer.etag)) {
        res.status(304);
        return send('');
      }
      return send(keptAnswer.body);
    }
    const bytes = typeof body === 'string' || Buffer.isBuffer(body);
    if (res.statusCode !== 200 || !bytes || res.getHeader('ETag') !== undefined) {
      return send(body);
    }
    const encoded = jsonBytes(res, body as string | Buffer);
    const etag = recordTag(encoded);
    onTag?.(etag, encoded);
    if (setCachingHeaders(req, res, etag)) {
      res.status(304);
      return send('');
    }
    return send(encoded);
  } as Response['send'];
  next();
}

/**
 * A JSON answer's text (what res.json passes on) as UTF-8 bytes, with the
 * charset Express would add to a string: encoded once here, then hashed and
 * sent as they are, instead of once for the hash and again by `send`.
 */
function jsonBytes(res: Response, body: string | Buffer): string | Buffer {
  if (typeof body !== 'string' || !JSON_TYPES.has(String(res.getHeader('Content-Type'))))
    return body;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  return Buffer.from(body, 'utf8');
}

/** What `res.json` sets: Express 5 adds the charset itself (Express 4 left it to `send`). */
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);
