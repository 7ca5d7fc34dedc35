import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ContextualRequest } from '../common/http/request-context';
import type { AuthUser } from './auth-user';
import { TokenService } from './token.service';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A request made in process for a caller whose token was verified already
 * (an operation of a batch, docs/api.md §18): the `Authorization` header it
 * carries and who it names. Set only by code, never from the wire.
 */
export interface VerifiedCallerRequest {
  verifiedCaller?: { authorization: string; user: AuthUser };
}

/**
 * Runs before validation (docs/api.md §3): a sent token must be valid on any
 * request (401 otherwise), and every write needs one. A token verified for
 * the request that made this one (VerifiedCallerRequest) is not verified again.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly tokens: TokenService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ContextualRequest & VerifiedCallerRequest>();
    const header = req.headers.authorization;
    if (header !== undefined) {
      const verified = req.verifiedCaller;
      const user =
        verified?.authorization === header ? verified.user : await this.verify(header);
      if (!user) throw ApiError.unauthorized();
      req.user = user;
    }
    if (!READ_METHODS.has(req.method) && !req.user) throw ApiError.unauthorized();
    return true;
  }

  private verify(header: string): Promise<AuthUser | undefined> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? this.tokens.verify(match[1]) : Promise.resolve(undefined);
  }
}
