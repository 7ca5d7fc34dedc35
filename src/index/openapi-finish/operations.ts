import {
  CACHING_HEADERS,
  COMMON_HEADERS,
  header,
  IDEMPOTENCY_KEY_PARAMETER,
  IF_MATCH,
  IF_NONE_MATCH,
  type Schema,
} from './headers';
import {
  errorStatusesOf,
  isConditionalWrite,
  TAGGED_CREATES,
  takesIdempotencyKey,
  UPSERTS,
} from './errors';

import {
  EXTERNAL_SOURCE_PATTERN,
  MAX_EXTERNAL_ID,
  MAX_EXTERNAL_SOURCE,
} from '../../posts/dto/external-key.dto';

/* Per operation: security, success and error responses with their headers, parameters, forms. */

export function fixOperation(path: string, method: string, operation: Schema): void {
  // Public reads take an optional token: context=edit and unpublished records need one.
  if (!operation.security) operation.security = [{}, { bearer: [] }];

  const hasBody = Boolean(operation.requestBody);
  const conditionalWrite = isConditionalWrite(path, method);
  const idempotent = takesIdempotencyKey(path, method);
  const responses: Schema = {};
  let listHeaders: Schema = {};
  for (const [status, response] of Object.entries(operation.responses as Schema)) {
    if (status === 'default' || status === '304') continue;
    const headers: Schema = Object.fromEntries(COMMON_HEADERS.map((name) => [name, header(name)]));
    if (status === '201') headers.Location = header('Location');
    if (idempotent) headers['Idempotency-Replayed'] = header('Idempotency-Replayed');
    if (isList(response)) {
      listHeaders = {
        'X-Total': header('X-Total'),
        'X-TotalPages': header('X-TotalPages'),
        Link: header('Link'),
      };
      Object.assign(headers, listHeaders);
    }
    // docs/api.md §11: every 200 of a read is tagged and cacheable; a write tags its record.
    if (method === 'get' && status === '200') Object.assign(headers, CACHING_HEADERS);
    if (conditionalWrite && status === '200') headers.ETag = header('WriteETag');
    if (status === '201' && (TAGGED_CREATES.test(path) || UPSERTS.test(path)))
      headers.ETag = header('WriteETag');
    responses[status] = {
      ...response,
      description: response.description || (status === '201' ? 'Created' : 'OK'),
      headers: { ...(response.headers ?? {}), ...headers },
    };
  }
  if (method === 'get') {
    responses['304'] = {
      description: 'If-None-Match holds: the copy the client holds is current. No body.',
      headers: {
        ...Object.fromEntries(COMMON_HEADERS.map((name) => [name, header(name)])),
        ...CACHING_HEADERS,
        ...listHeaders,
      },
    };
  }
  for (const status of errorStatusesOf(path, method, hasBody)) {
    responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  }
  operation.responses = responses;
  if (method === 'get') addHeaderParameter(operation, IF_NONE_MATCH);
  if (conditionalWrite) addHeaderParameter(operation, IF_MATCH);
  if (idempotent) addHeaderParameter(operation, IDEMPOTENCY_KEY_PARAMETER);

  for (const parameter of (operation.parameters ?? []) as Schema[]) {
    if (UPSERTS.test(path)) fixKeyParameter(parameter);
    else fixParameter(parameter);
  }
  const body = operation.requestBody?.content?.['application/json'];
  if (body) {
    // Forms are read like JSON (WordPress clients send them).
    operation.requestBody.content['application/x-www-form-urlencoded'] = { schema: body.schema };
  }
  const calendar = operation.requestBody?.content?.['text/calendar'];
  // An uploaded iCalendar file (POST /imports) is a document, not the JSON body's fields.
  if (calendar)
    calendar.schema = { type: 'string', description: 'RFC 5545 iCalendar, at most 10 MiB.' };
}

/** Adds a header parameter once (the iCalendar routes declare If-None-Match themselves). */
function addHeaderParameter(operation: Schema, parameter: Schema): void {
  const parameters = ((operation.parameters as Schema[] | undefined) ?? []).filter(
    (p) => !(p.in === 'header' && p.name === parameter.name),
  );
  operation.parameters = [...parameters, { ...parameter }];
}

function isList(response: Schema): boolean {
  const schema = response.content?.['application/json']?.schema;
  return Boolean(schema?.properties?.total_pages);
}

/** The path parts of an upsert: the external key (docs/api.md §17). */
function fixKeyParameter(parameter: Schema): void {
  if (parameter.in !== 'path') return fixParameter(parameter);
  parameter.schema =
    parameter.name === 'source'
      ? {
          type: 'string',
          minLength: 1,
          maxLength: MAX_EXTERNAL_SOURCE,
          pattern: EXTERNAL_SOURCE_PATTERN.source,
          example: 'ticketing',
        }
      : { type: 'string', minLength: 1, maxLength: MAX_EXTERNAL_ID, example: 'evt-2030-0042' };
}

function fixParameter(parameter: Schema): void {
  const schema = parameter.schema as Schema | undefined;
  if (!schema) return;
  if (parameter.in === 'path' && parameter.name === 'id') {
    parameter.schema = {
      type: 'integer',
      minimum: 0,
      description: 'Any run of digits; one that names no record is not found.',
    };
    parameter.example = 1;
  }
  if (parameter.in === 'path' && parameter.name === 'slug') {
    parameter.schema = { type: 'string', minLength: 1, example: 'jazz-in-het-park' };
  }
  if (parameter.in === 'query' && schema.type === 'array') {
    // Sent as a comma list (`include=1,2`); `a[]=1&a[]=2` and `a=1&a=2` work as well.
    parameter.style = 'form';
    parameter.explode = false;
    schema.maxItems ??= 100;
  }
  if (
    parameter.in === 'query' &&
    schema.type === 'string' &&
    /(^|_)(date|before|after)$/.test(parameter.name)
  ) {
    Object.assign(schema, {
      description:
        '`YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD`, ISO 8601 with or without offset, or unix seconds',
      example: '2030-06-01',
    });
  }
}
