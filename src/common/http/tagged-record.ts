import type { Response } from 'express';

/**
 * A write's answer with its ETag (docs/api.md §11): the tag a GET of the
 * record would carry right after the write, computed by the service in the
 * write's transaction (the write's own body may differ from the GET's, e.g. no
 * JSON-LD, and a later read could already show another writer's change).
 * No tag: the answer has no ETag (a record deleted for good).
 */
export interface Tagged<R> {
  record: R;
  etag?: string;
}

/**
 * Sets the answer's `ETag` header and returns its record: controllers return
 * the plain record, so their return types (and /doc) show the record.
 */
export function sendTagged<R>(res: Response, answer: Tagged<R>): R {
  if (answer.etag) res.setHeader('ETag', answer.etag);
  return answer.record;
}
