import type { Response } from 'express';
import { sendAsBytes } from './json-writer';

/**
 * A write's answer with its ETag (docs/api.md §11): the tag a GET of the
 * record would carry right after the write, computed by the service from the
 * rows its transaction read last (the write's own body may differ from the
 * GET's, e.g. no JSON-LD, and a later read could already show another writer's
 * change).
 * No tag: the answer has no ETag (a record deleted for good).
 */
export interface Tagged<R> {
  record: R;
  etag?: string;
  /** The record's JSON as `res.json` would send it, when the write built it already (writeAnswer). */
  bytes?: Buffer;
}

/**
 * Sets the answer's `ETag` header and returns its record: controllers return
 * the plain record, so their return types (and /doc) show the record.
 */
export function sendTagged<R>(res: Response, answer: Tagged<R>): R {
  if (answer.etag) res.setHeader('ETag', answer.etag);
  if (answer.bytes) sendAsBytes(res, answer.record, answer.bytes);
  return answer.record;
}

/**
 * A create's answer (docs/api.md §7): `sendTagged`, and a `Location` header
 * naming the new record's REST URL.
 */
export function sendCreated<R extends LocatedRecord>(res: Response, answer: Tagged<R>): R {
  const location = locationOf(answer.record);
  if (location) res.setHeader('Location', location);
  return sendTagged(res, answer);
}

type LocatedRecord = { rest_url?: string; urls?: { self?: string } } | undefined;

/** The REST URL a create's Location names: the record's own. */
export function locationOf(record: LocatedRecord): string | undefined {
  return record?.rest_url ?? record?.urls?.self;
}
