import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Inject,
  Logger,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { Response } from 'express';
import { appConfig } from '../../config/app.config';
import type { Language } from '../../i18n/language';
import { requestLanguage } from '../../i18n/language.middleware';
import { ERROR_MESSAGES, format, reasonMessage } from '../../i18n/messages';
import { ContextualRequest } from '../http/request-context';
import { ApiError } from './api-error';
import { ErrorKey, wireCode } from './error-codes';
import { isDatabaseUnavailable } from './database-errors';
import { signals } from '../../metrics/signals';

const STATUS_TO_KEY: Partial<Record<number, ErrorKey>> = {
  [HttpStatus.NOT_FOUND]: 'rest_no_route',
  [HttpStatus.METHOD_NOT_ALLOWED]: 'rest_no_route',
  [HttpStatus.UNAUTHORIZED]: 'rest_unauthorized',
  [HttpStatus.FORBIDDEN]: 'rest_forbidden',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'rest_payload_too_large',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'rest_unsupported_media_type',
  [HttpStatus.TOO_MANY_REQUESTS]: 'rest_too_many_requests',
  [HttpStatus.SERVICE_UNAVAILABLE]: 'rest_service_unavailable',
  [HttpStatus.BAD_REQUEST]: 'rest_invalid_param',
};

const RETRY_AFTER_SECONDS = '5';

/**
 * The single place where anything thrown becomes the contract's error body
 * `{code, message, data: {status, params?}}`, in the request's language.
 * Unexpected errors are logged with the request ID and answered with a bare
 * 500: no stack trace, SQL or internal name ever reaches the client.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  constructor(@Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<ContextualRequest & { id?: string }>();
    const res = http.getResponse<Response>();
    const error = this.toApiError(exception, req);
    if (res.headersSent) {
      res.end();
      return;
    }
    const language = this.languageOf(req);
    for (const [name, value] of Object.entries(error.details.headers ?? {})) {
      // The rate limiter already set the real wait (until the client's budget frees up).
      if (error.status === HttpStatus.TOO_MANY_REQUESTS && res.getHeader(name) !== undefined)
        continue;
      res.setHeader(name, value);
    }
    res.status(error.status).json(renderError(error, language));
  }

  private toApiError(exception: unknown, req: ContextualRequest & { id?: string }): ApiError {
    if (exception instanceof ApiError) return exception;
    const parserError = bodyParserError(exception);
    if (parserError) return parserError;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const key = STATUS_TO_KEY[status];
      if (key === 'rest_too_many_requests' || key === 'rest_service_unavailable') {
        return new ApiError(key, { headers: { 'Retry-After': RETRY_AFTER_SECONDS } });
      }
      if (key === 'rest_unauthorized') return ApiError.unauthorized();
      if (key === 'rest_payload_too_large') return new ApiError(key, { args: { limit: '1 MiB' } });
      // The router could not decode a path parameter (`/events/by-slug/%ff`).
      if (status === 400 && !decodes(req.path)) return ApiError.invalid('path', 'percentEncoding');
      if (key) return new ApiError(key);
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn({ requestId: req.id, err: describe(exception) }, 'database unavailable');
      signals.databaseUnavailable();
      return new ApiError('rest_service_unavailable', {
        headers: { 'Retry-After': RETRY_AFTER_SECONDS },
      });
    }
    this.logger.error({ requestId: req.id, err: describe(exception) }, 'unexpected error');
    return new ApiError('rest_internal_error');
  }

  private languageOf(req: ContextualRequest): Language {
    // Resolved by LanguageMiddleware, unless the request failed before it (body parsing, 415).
    const resolution = requestLanguage(req, this.config.defaultLanguage);
    return resolution.ok ? resolution.language : resolution.fallback;
  }
}

/** Renders an ApiError as the contract's body in one language. */
export function renderError(error: ApiError, language: Language) {
  const { missing, invalid, data, args } = error.details;
  const names = missing ?? Object.keys(invalid ?? {});
  const message = format(ERROR_MESSAGES[error.key][language], {
    names: names.join(', '),
    ...args,
  });
  const params = missing
    ? missing
    : invalid
      ? Object.fromEntries(
          Object.entries(invalid).map(([name, reason]) => [
            name,
            reasonMessage(reason.reason, language, { name, ...reason.args }),
          ]),
        )
      : undefined;
  return {
    code: wireCode(error.key),
    message,
    data: { status: error.status, ...(params ? { params } : {}), ...data },
  };
}

/** body-parser's errors carry a `type`; map the ones a client causes. */
export function bodyParserError(exception: unknown): ApiError | undefined {
  const type = (exception as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new ApiError('rest_invalid_json');
    case 'entity.too.large':
      return new ApiError('rest_payload_too_large', { args: { limit: '1 MiB' } });
    case 'parameters.too.many':
      return new ApiError('rest_payload_too_large', { args: { limit: '1 MiB' } });
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'request.aborted':
      return new ApiError('rest_invalid_json');
    default:
      return undefined;
  }
}

function describe(exception: unknown): Record<string, unknown> {
  if (exception instanceof Error) {
    return { type: exception.name, message: exception.message, stack: exception.stack };
  }
  return { value: String(exception) };
}

/** Whether every segment of a path is valid percent-encoded UTF-8. */
function decodes(path: string): boolean {
  try {
    for (const segment of path.split('/')) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}
