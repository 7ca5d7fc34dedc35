import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors/api-error';

const ACCEPTED = ['application/json', 'application/x-www-form-urlencoded', '+json'];
/** Also taken by the upload routes: read as a stream by their handlers, never parsed here. */
const UPLOAD = [...ACCEPTED, 'text/calendar'];

/**
 * A body in any other format than JSON or a form is refused with 415 before
 * parsing; `uploadPaths` (POST only, e.g. `{api}/imports`) also take `text/calendar`.
 */
export function requireSupportedContentType(uploadPaths: readonly string[] = []) {
  const uploads = new Set(uploadPaths.flatMap((path) => [path, `${path}/`]));
  return (req: Request, _res: Response, next: NextFunction): void => {
    // req.is() is null without a body, false for a body of another type; an empty body has no type.
    const empty = req.headers['content-length'] === '0';
    const accepted = req.method === 'POST' && uploads.has(req.path) ? UPLOAD : ACCEPTED;
    if (!empty && req.is(accepted) === false) {
      next(new ApiError('rest_unsupported_media_type'));
      return;
    }
    next();
  };
}
