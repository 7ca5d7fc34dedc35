import { Global, Module } from '@nestjs/common';
import { RequestContextMiddleware } from '../common/http/request-context.middleware';

/** Resolves every request's language (parameter → Accept-Language → default). */
@Global()
@Module({ providers: [RequestContextMiddleware], exports: [RequestContextMiddleware] })
export class I18nModule {}
