import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';

/** Creates answer 201 with a Location header naming the new record's REST URL (docs/api.md §7). */
@Injectable()
export class LocationInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((record: LocatedRecord) => {
        const location = locationOf(record);
        if (location) res.setHeader('Location', location);
        return record;
      }),
    );
  }
}

type LocatedRecord = { rest_url?: string; urls?: { self?: string } } | undefined;

/** The REST URL a create's Location names: the record's own. */
export function locationOf(record: LocatedRecord): string | undefined {
  return record?.rest_url ?? record?.urls?.self;
}
