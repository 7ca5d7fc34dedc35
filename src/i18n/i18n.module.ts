import { Global, Module } from '@nestjs/common';
import { LanguageMiddleware } from './language.middleware';

/**
 * Languages: resolves every request's language once (LanguageMiddleware,
 * reused by the error filter), documents the `language` parameter
 * (ApiLanguageQuery) and holds the nl/en texts of errors (messages.ts).
 */
@Global()
@Module({ providers: [LanguageMiddleware], exports: [LanguageMiddleware] })
export class I18nModule {}
