import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

/** Documents a list response: the wrapper of docs/api.md §5 around `key: Item[]`. */
export function ApiListResponse(key: string, item: Type<unknown>, withFeed = false) {
  return applyDecorators(
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
