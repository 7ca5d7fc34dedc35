import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { mergeMap, Observable } from 'rxjs';
import { DataVersionService } from './data-version.service';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Bumps the data version after every successful write, before the client is answered. */
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
    );
  }
}
