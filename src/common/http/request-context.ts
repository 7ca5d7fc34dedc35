import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AuthUser } from '../../auth/auth-user';
import type { Language } from '../../i18n/language';
import type { LanguageRequest } from '../../i18n/language.middleware';
import { ApiError } from '../errors/api-error';
import { requestOrigin } from './request-origin';
import type { PreconditionRequest, WritePrecondition } from './write-precondition';
import { type WriteRequest, type WriteRequestHolder, writeRequestOf } from './write-request';

/** What the middlewares and the auth guard attach to every request. */
export interface ContextualRequest extends LanguageRequest, WriteRequestHolder {
  apiUrl?: string;
  user?: AuthUser;
  writePrecondition?: PreconditionRequest['writePrecondition'];
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
  /** If-Match and REQUIRE_IF_MATCH, for single-record writes (docs/api.md §11). */
  precondition?: WritePrecondition;
  /** The request's idempotency claim and version bumps, for its write transactions (none: a job). */
  write?: WriteRequest;
}

// Not write state: the request's own context, built once per request object and gone with it.
const contexts = new WeakMap<ContextualRequest, RequestContext>();

/**
 * The request's context, built once: everything that reads it per request
 * (the data version, caches) then shares one object. First asked for after
 * the guards ran, so `user` is set.
 */
export function requestContextOf(req: ContextualRequest): RequestContext {
  let context = contexts.get(req);
  if (context) return context;
  const resolution = req.languageResolution;
  if (resolution && !resolution.ok) throw ApiError.invalid('language', 'isIn');
  context = {
    language: resolution?.ok ? resolution.language : 'nl',
    user: req.user,
    apiUrl: req.apiUrl ?? '',
    precondition: req.writePrecondition,
    write: writeRequestOf(req),
  };
  contexts.set(req, context);
  return context;
}

/** Express middleware: the absolute URL of {api} (`apiPath`) as the request reached it. */
export function assignApiUrl(apiPath: string) {
  return (req: ContextualRequest, _res: Response, next: NextFunction): void => {
    req.apiUrl = `${requestOrigin(req)}${apiPath}`;
    next();
  };
}

/** Injects the RequestContext; an unsupported `language` answers 400 here, after auth. */
export const Ctx = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestContext =>
  requestContextOf(ctx.switchToHttp().getRequest<ContextualRequest>()),
);
