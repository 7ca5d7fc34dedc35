import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { NextFunction, Response } from 'express';
import { appConfig } from '../../config/app.config';
import { resolveLanguage } from '../../i18n/language';
import { ContextualRequest } from './request-context';

/**
 * Resolves the request's language (without rejecting yet: auth comes first)
 * and the absolute URL of the API root.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  constructor(@Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>) {}

  use(req: ContextualRequest, _res: Response, next: NextFunction): void {
    req.languageResolution = resolveLanguage({
      parameter: languageParameter(req),
      acceptLanguage: req.headers['accept-language'],
      defaultLanguage: this.config.defaultLanguage,
    });
    req.apiUrl = `${req.protocol}://${req.get('host') ?? 'localhost'}${this.config.apiPath}`;
    next();
  }
}

function languageParameter(req: ContextualRequest): unknown {
  const fromQuery = req.query?.language;
  if (fromQuery !== undefined) return fromQuery;
  const body: unknown = req.body;
  if (body && typeof body === 'object' && 'language' in body)
    return (body as { language: unknown }).language;
  return undefined;
}
