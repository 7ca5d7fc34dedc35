import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors/api-error';

const ACCEPTED = ['application/json', 'application/x-www-form-urlencoded', '+json'];

/** A body in any other format than JSON or a form is refused with 415 before parsing. */
export function requireSupportedContentType(
  req: Request,
  _res: Response,
  next: NextFunction,
): void {
  // req.is() is null without a body, false for a body of another type; an empty body has no type.
  const empty = req.headers['content-length'] === '0';
  if (!empty && req.is(ACCEPTED) === false) {
    next(new ApiError('rest_unsupported_media_type'));
    return;
  }
  next();
}
