import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors/api-error';
import { matchHolds, parseTagList, TagList } from './entity-tags';
import { recordTag } from './record-tag';

/*
 * Optimistic concurrency for single-record writes (docs/api.md §11): If-Match
 * against the ETag a GET of the record by the same caller in the same language
 * would carry, and REQUIRE_IF_MATCH. Services evaluate it inside their write
 * transaction, after locking the record's row, so no other writer can change
 * the record between the check and the write.
 */

/** What a write request asks for; attached to the request, carried by RequestContext. */
export interface WritePrecondition {
  /** The If-Match tags, `*`, or undefined without the header. */
  ifMatch?: TagList;
  /** REQUIRE_IF_MATCH: a write to an existing record without If-Match is 428. */
  required: boolean;
}

export interface PreconditionRequest extends Request {
  writePrecondition?: WritePrecondition;
}

/** Express middleware: reads If-Match once per request. */
export function assignWritePrecondition(required: boolean) {
  return (req: PreconditionRequest, _res: Response, next: NextFunction): void => {
    req.writePrecondition = { ifMatch: parseTagList(req.headers['if-match']), required };
    next();
  };
}

/**
 * Throws 428 `rest_precondition_required` or 412 `rest_precondition_failed`
 * unless the write may go ahead. Call it for an existing record, after the
 * caller was authorised, inside the write's transaction with the row locked.
 * `currentBody` renders what a GET would answer now; it runs only for a tag list.
 */
export async function assertPrecondition(
  precondition: WritePrecondition | undefined,
  currentBody: () => Promise<unknown>,
): Promise<void> {
  const ifMatch = precondition?.ifMatch;
  if (ifMatch === undefined) {
    if (precondition?.required) throw new ApiError('rest_precondition_required');
    return;
  }
  if (ifMatch === '*') return;
  if (ifMatch.length === 0 || !matchHolds(ifMatch, recordTag(await currentBody())))
    throw new ApiError('rest_precondition_failed');
}
