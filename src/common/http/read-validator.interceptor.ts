import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, mergeMap, Observable, of } from 'rxjs';
import { DataVersionService } from '../cache/data-version.service';
import { ReadValidatorCache } from '../cache/read-validator-cache.service';
import { CACHED_VALIDATORS, CachedValidatorsOptions } from './cached-validators';
import { answerNotModified, answerWithKept, onEntityTag } from './conditional-get';
import { noneMatchHolds, parseTagList } from './entity-tags';
import { ContextualRequest, requestContextOf } from './request-context';

/** A 304 repeats the list headers of its 200 (docs/api.md §11). */
const KEPT_HEADERS = ['X-Total', 'X-TotalPages', 'Link'];

/**
 * 304 without the handler's work, on @CachedValidators routes: every 200's
 * ETag is remembered with the data version read before the handler ran
 * (the same version the handler's caches use), and a later If-None-Match
 * that matches it while that version holds is answered at once.
 */
@Injectable()
export class ReadValidatorInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly versions: DataVersionService,
    private readonly validators: ReadValidatorCache,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<ContextualRequest>();
    const cached = this.reflector.getAllAndOverride<CachedValidatorsOptions | undefined>(
      CACHED_VALIDATORS,
      [context.getHandler(), context.getClass()],
    );
    if (!cached || (req.method !== 'GET' && req.method !== 'HEAD')) return next.handle();
    // "starts now or later" moves by the second; an unsupported language is the handler's 400.
    if ('only_with_upcoming' in req.query || req.languageResolution?.ok === false)
      return next.handle();
    // The key holds the URL: a password would be a secret kept in memory, and each guess an entry.
    if ('password' in req.query) return next.handle();
    const res = http.getResponse<Response>();
    if (cached.readsVersionWithContent && !cached.keepsAnswers && !req.headers['if-none-match']) {
      const ctx = requestContextOf(req);
      this.rememberTag(res, this.validators.keyOf(req.originalUrl, ctx), () =>
        this.versions.current(ctx),
      );
      return next.handle();
    }
    return from(this.answeredFromCache(req, res, cached)).pipe(
      mergeMap((answered) => (answered ? of(undefined) : next.handle())),
    );
  }

  private async answeredFromCache(
    req: ContextualRequest,
    res: Response,
    cached: CachedValidatorsOptions,
  ): Promise<boolean> {
    const ctx = requestContextOf(req);
    const version = await this.versions.current(ctx);
    const key = this.validators.keyOf(req.originalUrl, ctx);
    const stored = this.validators.get(key, version);
    const ifNoneMatch = req.headers['if-none-match'];
    if (stored && ifNoneMatch && noneMatchHolds(parseTagList(ifNoneMatch), stored.etag)) {
      for (const [name, value] of stored.headers) res.setHeader(name, value);
      answerNotModified(req, res, stored.etag);
      // A handler with @Res() would have sent the answer: Nest sends nothing in its place.
      if (cached.writesResponse) res.status(304).end();
      return true;
    }
    // Only anonymous answers are kept: they are the public bulk, and a signed-in
    // caller's answer would be one entry per user.
    const keepsAnswer = cached.keepsAnswers === true && !ctx.user;
    const kept = keepsAnswer ? this.validators.keptAnswer(key, version) : undefined;
    if (kept) {
      answerWithKept(res, kept);
      return true;
    }
    this.rememberTag(res, key, () => version, keepsAnswer);
    return false;
  }

  /**
   * Remembers the 200's ETag (and with `keepsAnswer` its bytes) under the
   * data version `version` gives: one read no later than the answer's content.
   */
  private rememberTag(
    res: Response,
    key: string,
    version: () => number | Promise<number>,
    keepsAnswer = false,
  ): void {
    onEntityTag(res, (etag, body) => {
      const headers = KEPT_HEADERS.flatMap((name) => {
        const value = res.getHeader(name);
        return value === undefined ? [] : [[name, String(value)] as const];
      });
      const remember = (at: number) => {
        this.validators.set(key, { etag, headers }, at);
        if (keepsAnswer && Buffer.isBuffer(body))
          this.validators.keepAnswer(key, { etag, body }, at);
      };
      const at = version();
      if (typeof at === 'number') remember(at);
      // Read by the handler before its answer: settled, so remembered right after the send.
      else at.then(remember, () => undefined);
    });
  }
}
