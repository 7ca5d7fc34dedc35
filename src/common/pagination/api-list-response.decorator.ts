import { applyDecorators, Type, UseInterceptors } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import { ListPageInterceptor } from './list-page.interceptor';

/**
 * A list route: its ListPage rendered as the wrapper of docs/api.md §5 around
 * `key: Item[]` with the list headers (ListPageInterceptor, bound here and not
 * globally: every interceptor is a layer each request of a route passes, and
 * only lists need this one), and documented so.
 */
export function ApiListResponse(key: string, item: Type<unknown>, withFeed = false) {
  return applyDecorators(
    UseInterceptors(ListPageInterceptor),
    ApiExtraModels(item),
    ApiOkResponse({
      description:
        'One page of the list; X-Total, X-TotalPages and Link headers carry the same facts.',
      schema: {
        type: 'object',
        required: [key, 'rest_url', 'total', 'total_pages', ...(withFeed ? ['ical_url'] : [])],
        properties: {
          [key]: { type: 'array', items: { $ref: getSchemaPath(item) } },
          rest_url: { type: 'string', description: 'This page.' },
          next_rest_url: { type: 'string', description: 'The next page, when there is one.' },
          previous_rest_url: {
            type: 'string',
            description: 'The previous page, when there is one.',
          },
          total: { type: 'integer', description: 'Matches the caller may see.' },
          total_pages: { type: 'integer' },
          ...(withFeed
            ? {
                ical_url: {
                  type: 'string',
                  description: 'The iCalendar feed of the same filters, every match, unpaged.',
                },
              }
            : {}),
        },
      },
    }),
  );
}
