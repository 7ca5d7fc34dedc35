import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AccessPolicy } from '../auth/policy';
import { ApiError } from '../common/errors/api-error';
import type { ContextualRequest } from '../common/http/request-context';

/**
 * Every import route, reads included, is for administrators (docs/api.md
 * "Imports"): 401 without a token, 403 for other roles, before any input is
 * validated or an uploaded body is read.
 */
@Injectable()
export class ImportsGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const user = context.switchToHttp().getRequest<ContextualRequest>().user;
    if (!user) throw ApiError.unauthorized();
    if (!AccessPolicy.canManageImports(user)) throw ApiError.forbidden();
    return true;
  }
}
