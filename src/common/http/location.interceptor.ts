import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';

/** Creates answer 201 with a Location header naming the new record's REST URL (docs/api.md §7). */
@Injectable()
export class LocationInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((record: { rest_url?: string; urls?: { self?: string } }) => {
        const location = record?.rest_url ?? record?.urls?.self;
        if (location) res.setHeader('Location', location);
        return record;
      }),
    );
  }
}
