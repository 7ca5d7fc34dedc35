import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { catchError, Observable, throwError, timeout, TimeoutError } from 'rxjs';
import { appConfig } from '../../config/app.config';
import { ApiError } from '../errors/api-error';

/** Answers 503 with Retry-After when a request runs longer than REQUEST_TIMEOUT_MS. */
@Injectable()
export class RequestTimeoutInterceptor implements NestInterceptor {
  constructor(@Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      timeout(this.config.requestTimeoutMs),
      catchError((error: unknown) =>
        throwError(() =>
          error instanceof TimeoutError
            ? new ApiError('rest_request_timeout', { headers: { 'Retry-After': '5' } })
            : error,
        ),
      ),
    );
  }
}
