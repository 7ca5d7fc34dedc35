import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AccessPolicy } from '../auth/policy';
import { ApiError } from '../common/errors/api-error';
import { ContextualRequest, requestContextOf } from '../common/http/request-context';

/**
 * Every webhook route, reads included, is for administrators (docs/api.md §15):
 * 401 without a token, 403 for other roles, before any input is validated
 * (then 400 for an unsupported `language`).
 */
@Injectable()
export class WebhooksGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const user = context.switchToHttp().getRequest<ContextualRequest>().user;
    if (!user) throw ApiError.unauthorized();
    if (!AccessPolicy.canManageWebhooks(user)) throw ApiError.forbidden();
    // An unsupported `language` is 400 here, as the Ctx decorator answers it elsewhere
    // (most webhook handlers take no RequestContext).
    requestContextOf(context.switchToHttp().getRequest<ContextualRequest>());
    return true;
  }
}
