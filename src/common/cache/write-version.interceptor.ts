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
import { writeRequestOf, type WriteRequestHolder } from '../http/write-request';
import { VersionBumps } from './version-bumps';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Sees that every write has bumped the data version before the client is
 * answered. A write with tracked changes bumps it in its own transaction
 * (the commit pipeline); this bumps after the others (webhook endpoints, pings), and
 * after a 5xx unless a bump committed with the data: the write may have
 * committed before failing (a time-out, a lost reply); a spare bump only
 * costs the caches a refill. A 4xx is decided before anything commits.
 * A batch (docs/api.md §18) writes nothing itself (VersionBumps.writesNothingItself):
 * a default batch's operations bump as alone, an atomic batch's at its COMMIT.
 */
@Injectable()
export class WriteVersionInterceptor implements NestInterceptor {
  constructor(private readonly versions: DataVersionService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request & WriteRequestHolder>();
    if (READ_METHODS.has(req.method)) return next.handle();
    const write = writeRequestOf(req);
    // An atomic batch's operation: its writes join the batch's transaction, which bumps for them.
    if (write.batch) return next.handle();
    const bumps = new VersionBumps();
    // The request's write transactions report here (RequestContext.write).
    write.bumps = bumps;
    return next.handle().pipe(
      mergeMap(async (result: unknown) => {
        if (bumps.owed(200)) await this.versions.bump();
        return result;
      }),
      catchError(async (error: unknown) => {
        if (bumps.owed(statusOf(error))) await this.versions.bump();
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
