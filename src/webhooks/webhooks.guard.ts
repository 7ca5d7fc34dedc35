import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AccessPolicy } from '../auth/policy';
import { ApiError } from '../common/errors/api-error';
import { ContextualRequest } from '../common/http/request-context';

/**
 * Every webhook route, reads included, is for administrators (docs/api.md §15):
 * 401 without a token, 403 for other roles, before any input is validated.
 */
@Injectable()
export class WebhooksGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const user = context.switchToHttp().getRequest<ContextualRequest>().user;
    if (!user) throw ApiError.unauthorized();
    if (!AccessPolicy.canManageWebhooks(user)) throw ApiError.forbidden();
    return true;
  }
}
