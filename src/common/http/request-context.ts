import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthUser } from '../../auth/auth-user';
import { Language, LanguageResolution } from '../../i18n/language';
import { ApiError } from '../errors/api-error';

/** What the middleware and the auth guard attach to every request. */
export interface ContextualRequest extends Request {
  languageResolution?: LanguageResolution;
  apiUrl?: string;
  user?: AuthUser;
}

/**
 * The per-request facts every service call needs, passed explicitly from
 * controller to service to mapper.
 */
export interface RequestContext {
  language: Language;
  user?: AuthUser;
  /** Absolute URL of {api} as the request reached it. */
  apiUrl: string;
}

export function requestContextOf(req: ContextualRequest): RequestContext {
  const resolution = req.languageResolution;
  if (resolution && !resolution.ok) throw ApiError.invalid('language', 'isIn');
  return {
    language: resolution?.ok ? resolution.language : 'nl',
    user: req.user,
    apiUrl: req.apiUrl ?? '',
  };
}

/** Injects the RequestContext; an unsupported `language` answers 400 here, after auth. */
export const Ctx = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestContext =>
  requestContextOf(ctx.switchToHttp().getRequest<ContextualRequest>()),
);
