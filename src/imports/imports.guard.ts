import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AccessPolicy } from '../auth/policy';
import { ApiError } from '../common/errors/api-error';
import { type ContextualRequest, requestContextOf } from '../common/http/request-context';

/**
 * Every import route, reads included, is for administrators (docs/api.md
 * "Imports"): 401 without a token, 403 for other roles, before any input is
 * validated or an uploaded body is read (then 400 for an unsupported `language`).
 */
@Injectable()
export class ImportsGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<ContextualRequest>();
    if (!req.user) throw ApiError.unauthorized();
    if (!AccessPolicy.canManageImports(req.user)) throw ApiError.forbidden();
    // An unsupported `language` is 400 on every route, also those without a RequestContext.
    requestContextOf(req);
    return true;
  }
}
