import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';

/*
 * A write's ETag (docs/api.md §11): the tag a GET of the record would carry
 * right after the write, computed by the service in the write's transaction
 * (the write's own body may differ from the GET's, e.g. no JSON-LD, and a
 * later read could already show another writer's change). Kept beside the
 * record rather than in a wrapper, so return types, /doc and every other
 * interceptor see the plain record.
 */
const tags = new WeakMap<object, string>();

/** The record, remembered with the ETag its answer carries (none: no header). */
export function withTag<R>(record: R, etag: string | undefined): R {
  if (etag && record && typeof record === 'object') tags.set(record, etag);
  return record;
}

/** Sets the `ETag` header of an answer whose record was tagged by withTag. */
@Injectable()
export class RecordTagInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((result: unknown) => {
        const etag = result && typeof result === 'object' ? tags.get(result) : undefined;
        if (etag) res.setHeader('ETag', etag);
        return result;
      }),
    );
  }
}
