import {
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  NestInterceptor,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, lastValueFrom, Observable } from 'rxjs';
import {
  CHANGE_COLLECTIONS,
  ChangeKind,
  ChangeCollection,
  kindOfCollection,
} from '../writes/change-kinds';
import { ApiError } from '../common/errors/api-error';
import { renderError } from '../common/errors/api-exception.filter';
import { ContextualRequest, requestContextOf } from '../common/http/request-context';
import { writeRequestOf } from '../common/http/write-request';
import { RecordReaders } from '../common/records/record-readers';
import { appConfig } from '../config/app.config';
import { IDEMPOTENT_PUT } from '../common/http/idempotent-put';
import { requestLanguage } from '../i18n/language.middleware';
import { canonicalJson, isValidIdempotencyKey, sha256 } from './fingerprint';
import { Claim, IdempotencyStore, StoredAnswer } from './idempotency.store';
import { SECRET_FIELDS, withoutSecrets } from './secret-fields';

export const IDEMPOTENCY_KEY = 'Idempotency-Key';
export const IDEMPOTENCY_REPLAYED = 'Idempotency-Replayed';

/** Headers of an answer that are part of it and replayed with it (the rest are per response). */
const ANSWER_HEADERS = ['location', 'etag', 'last-modified', 'content-location'];

/**
 * `Idempotency-Key` on every POST and the IdempotentPut routes (docs/api.md §13): claims the key, runs the
 * request, stores its answer; a retry gets the stored answer with
 * `Idempotency-Replayed: true` and writes nothing. Registered inside the
 * request time-out: when the client was already answered 503, the handler's
 * real answer is still stored when it arrives, so the retry replays it.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    private readonly readers: RecordReaders,
    private readonly reflector: Reflector,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<ContextualRequest & { body?: unknown }>();
    const res = http.getResponse<Response>();
    const key = req.get(IDEMPOTENCY_KEY);
    const idempotent =
      req.method === 'POST' ||
      (req.method === 'PUT' && this.reflector.get<boolean>(IDEMPOTENT_PUT, context.getHandler()));
    if (!idempotent || key === undefined) return next.handle();
    if (!isValidIdempotencyKey(key)) {
      throw ApiError.invalid(IDEMPOTENCY_KEY, 'isIdempotencyKey');
    }
    const secrets = this.reflector.get<string[] | undefined>(SECRET_FIELDS, context.getHandler());
    // Not cancelled with the subscription: the answer is stored even after a time-out.
    return from(this.handle(key, req, res, next, secrets ?? []));
  }

  private async handle(
    key: string,
    req: ContextualRequest & { body?: unknown },
    res: Response,
    next: CallHandler,
    secrets: readonly string[],
  ): Promise<unknown> {
    const caller = req.user ? `user:${req.user.id}` : 'anonymous';
    const begin = await this.store.begin({
      caller,
      id: sha256(caller, key),
      requestHash: sha256(req.method, req.originalUrl),
      fingerprint: sha256(canonicalJson(req.body ?? null)),
      // Nest sets the route's status before the interceptors run.
      successStatus: res.statusCode,
      kind: this.kindOf(req.path),
    });
    switch (begin.outcome) {
      case 'reused':
        throw new ApiError('rest_idempotency_key_reused');
      case 'in_use':
        throw new ApiError('rest_idempotency_key_in_use');
      case 'replay':
        return replay(res, begin.answer);
      case 'lost':
        return replay(res, await this.renderLost(req, begin));
      case 'claimed':
        return this.runClaimed(begin.claim, req, res, next, secrets);
    }
  }

  private async runClaimed(
    claim: Claim,
    req: ContextualRequest,
    res: Response,
    next: CallHandler,
    secrets: readonly string[],
  ): Promise<unknown> {
    let result: unknown;
    // The handler's write transactions commit the key with them (RequestContext.write.claim).
    writeRequestOf(req).claim = claim;
    try {
      result = await this.store.run(claim, () =>
        lastValueFrom(next.handle(), { defaultValue: undefined }),
      );
    } catch (error) {
      await this.afterError(claim, req, error);
      throw error;
    }
    await this.keep(claim, {
      status: res.statusCode,
      headers: answerHeaders(res),
      body: result === undefined ? null : JSON.stringify(withoutSecrets(result, secrets)),
    });
    return result;
  }

  /** 4xx answers are stored like successes; after a 5xx the key is released (docs/api.md §13). */
  private async afterError(claim: Claim, req: ContextualRequest, error: unknown): Promise<void> {
    if (error instanceof ApiError && error.status < 500) {
      const resolution = requestLanguage(req, this.config.defaultLanguage);
      const language = resolution.ok ? resolution.language : resolution.fallback;
      await this.keep(claim, {
        status: error.status,
        headers: error.details.headers ?? {},
        body: JSON.stringify(renderError(error, language)),
      });
      return;
    }
    await this.store.release(claim).catch((failure: Error) =>
      // The claim's lease ends by itself.
      this.logger.warn(`could not release an idempotency key: ${failure.message}`),
    );
  }

  /** A failure to store leaves the key `committed`: a retry renders the answer then. */
  private async keep(claim: Claim, answer: StoredAnswer): Promise<void> {
    await this.store
      .store(claim, answer)
      .catch((failure: Error) =>
        this.logger.warn(`could not store an idempotent answer: ${failure.message}`),
      );
  }

  /**
   * A write committed but its answer was never stored: the record it wrote, as
   * it is now, becomes the answer (and is stored, so later replays match).
   * Without such a record (a webhook route, a record deleted since) the key
   * stays in use until it expires, so the write is still never repeated.
   */
  private async renderLost(
    req: ContextualRequest,
    lost: Extract<Awaited<ReturnType<IdempotencyStore['begin']>>, { outcome: 'lost' }>,
  ): Promise<StoredAnswer> {
    const { kind, id } = lost;
    const ctx = requestContextOf(req);
    const record =
      kind && id !== null
        ? ((await this.readers.of(kind).feed([id], ctx)).get(id) as
            { rest_url?: string; urls?: { self?: string } } | undefined)
        : undefined;
    if (!record || !kind || id === null) {
      await this.store.release(lost.claim).catch(() => undefined);
      throw new ApiError('rest_idempotency_key_in_use');
    }
    // The Location of a create, as sendCreated sets it, and the ETag a write carries.
    const location = record.rest_url ?? record.urls?.self;
    const etag = await this.readers.tagOf(kind, id, ctx);
    const answer: StoredAnswer = {
      status: lost.status,
      headers: {
        ...(lost.status === 201 && location ? { location } : {}),
        ...(etag ? { etag } : {}),
      },
      body: JSON.stringify(record),
    };
    await this.keep(lost.claim, answer);
    return answer;
  }

  /** The record kind of the route's collection (`{api}/events/...` → event). */
  private kindOf(path: string): ChangeKind | undefined {
    const rest = path.startsWith(this.config.apiPath) ? path.slice(this.config.apiPath.length) : '';
    const collection = rest.split('/').find(Boolean) as ChangeCollection | undefined;
    return collection && CHANGE_COLLECTIONS.includes(collection)
      ? kindOfCollection(collection)
      : undefined;
  }
}

function answerHeaders(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ANSWER_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}

function replay(res: Response, answer: StoredAnswer): unknown {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader(IDEMPOTENCY_REPLAYED, 'true');
  return answer.body === null ? undefined : JSON.parse(answer.body);
}
