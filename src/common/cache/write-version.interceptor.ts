import {
  CallHandler,
  ExecutionContext,
  HttpException,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import type { Request } from 'express';
import { catchError, mergeMap, Observable } from 'rxjs';
import { ApiError } from '../errors/api-error';
import { DataVersionService } from './data-version.service';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Bumps the data version after every write, before the client is answered.
 * Also after one that failed with a 5xx: it may have committed before failing
 * (a time-out, a lost reply); a spare bump only costs the caches a refill.
 * A 4xx is decided before anything commits.
 */
@Injectable()
export class WriteVersionInterceptor implements NestInterceptor {
  constructor(private readonly versions: DataVersionService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const { method } = context.switchToHttp().getRequest<Request>();
    if (READ_METHODS.has(method)) return next.handle();
    return next.handle().pipe(
      mergeMap(async (result: unknown) => {
        await this.versions.bump();
        return result;
      }),
      catchError(async (error: unknown) => {
        if (statusOf(error) >= 500) await this.versions.bump();
        throw error;
      }),
    );
  }
}

function statusOf(error: unknown): number {
  if (error instanceof ApiError) return error.status;
  if (error instanceof HttpException) return error.getStatus();
  return 500;
}
