import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { sendTagged, type Tagged } from '../common/http/tagged-record';
import type { Upserted } from './external-upsert';

/**
 * An upsert's answer (docs/api.md §17): 201 with a Location header naming
 * the new record when it made one, else 200; the body is the record, with
 * the ETag its write computed.
 */
@Injectable()
export class UpsertAnswerInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map(({ record: answer, created }: Upserted<Tagged<{ rest_url?: string }>>) => {
        res.status(created ? 201 : 200);
        if (created && answer.record.rest_url) res.setHeader('Location', answer.record.rest_url);
        return sendTagged(res, answer);
      }),
    );
  }
}
