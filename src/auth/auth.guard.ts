import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ContextualRequest } from '../common/http/request-context';
import { TokenService } from './token.service';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Runs before validation (docs/api.md §3): a sent token must be valid on any
 * request (401 otherwise), and every write needs one.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly tokens: TokenService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ContextualRequest>();
    const header = req.headers.authorization;
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const user = match ? await this.tokens.verify(match[1]) : undefined;
      if (!user) throw ApiError.unauthorized();
      req.user = user;
    }
    if (!READ_METHODS.has(req.method) && !req.user) throw ApiError.unauthorized();
    return true;
  }
}
