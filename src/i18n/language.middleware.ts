import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import { appConfig } from '../config/app.config';
import { LanguageResolution, resolveLanguage } from './language';

/** A request whose language has been resolved (by LanguageMiddleware or the error filter). */
export interface LanguageRequest extends Request {
  languageResolution?: LanguageResolution;
}

/**
 * The request's language, resolved once and kept on the request: the
 * `language` parameter (query, else body), else Accept-Language, else
 * DEFAULT_LANGUAGE. An unsupported value is kept as such, to be rejected
 * after authentication (the Ctx decorator) or to pick the error's language.
 */
export function requestLanguage(
  req: LanguageRequest,
  defaultLanguage: ConfigType<typeof appConfig>['defaultLanguage'],
): LanguageResolution {
  req.languageResolution ??= resolveLanguage({
    parameter: languageParameter(req),
    acceptLanguage: req.headers['accept-language'],
    defaultLanguage,
  });
  return req.languageResolution;
}

/**
 * Resolves every request's language after the body parsers (a body may
 * carry `language`). A request that fails before (invalid JSON, 415) gets
 * its language from the error filter through the same requestLanguage.
 */
@Injectable()
export class LanguageMiddleware implements NestMiddleware {
  constructor(@Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>) {}

  use(req: LanguageRequest, _res: Response, next: NextFunction): void {
    requestLanguage(req, this.config.defaultLanguage);
    next();
  }
}

function languageParameter(req: Request): unknown {
  const fromQuery: unknown = req.query?.language;
  if (fromQuery !== undefined) return fromQuery;
  const body: unknown = req.body;
  if (body && typeof body === 'object' && 'language' in body)
    return (body as { language: unknown }).language;
  return undefined;
}
