import { applyDecorators, Put, Type, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { IdempotentPut } from '../common/http/idempotent-put';
import { UpsertAnswerInterceptor } from './upsert-answer.interceptor';

/**
 * `PUT <kind>/by-external-id/{source}/{id}` (docs/api.md §17), as events, venues and
 * organizers declare it: Idempotency-Key taken, 201 or 200 with the record.
 */
export function UpsertByExternalIdRoute(kindWithArticle: string, record: Type<unknown>) {
  return applyDecorators(
    Put('by-external-id/:source/:id'),
    ApiBearerAuth(),
    IdempotentPut(),
    UseInterceptors(UpsertAnswerInterceptor),
    ApiOperation({
      summary: `Create or update ${kindWithArticle} by its external key`,
      description:
        'Creates the record with this key (201) or updates the one that has it (200); docs/api.md §17.',
    }),
    ApiOkResponse({ type: record }),
    ApiCreatedResponse({ type: record }),
  );
}
