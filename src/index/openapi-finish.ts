import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_STATUS, wireCode } from '../common/errors/error-codes';

/*
 * The last pass over the generated OpenAPI document, so it says exactly what
 * the service does (docs/api.md): per-operation security, every error status
 * with the error body, response headers, integers, dates, input shapes, and
 * closed record schemas. Rules that hold for every route live here once,
 * instead of on each of ~50 handlers.
 */

type Schema = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Numbers that may have a fraction; every other `number` of the document is an integer. */
const DECIMALS = new Set([
  'geo_lat',
  'geo_lng',
  'geoloc_lat',
  'geoloc_lng',
  'geoloc_radius',
  'values',
]);

/** Record fields in the wire date format. */
const WIRE_DATES = new Set([
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'start_date',
  'end_date',
  'utc_start_date',
  'utc_end_date',
]);
const WIRE_DATE = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
  example: '2030-06-01 20:00:00',
};

/** A date as accepted on input (docs/api.md, "General"). */
const DATE_INPUT = {
  oneOf: [
    {
      type: 'string',
      description:
        '`YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD` (midnight), ISO 8601 with or without offset, or unix seconds as digits',
      example: '2030-06-01 20:00:00',
    },
    { type: 'integer', description: 'Unix seconds', example: 1906574400 },
  ],
};

/** An image as accepted on input: a URL, a media ID, or a value that clears it. */
const IMAGE_INPUT = {
  description: 'An http(s) URL or a positive media ID; `""`, `0`, `false` or `null` clear it.',
  oneOf: [
    {
      type: 'string',
      nullable: true,
      description: 'http(s) URL; "" or null clear it',
      example: 'https://example.org/poster.jpg',
    },
    { type: 'integer', minimum: 0, description: 'Media ID, or 0 to clear', example: 12 },
    { type: 'boolean', enum: [false], description: 'Clears the image' },
  ],
};

/** Record schemas whose every field is listed: a response with another field is a defect. */
const CLOSED_SCHEMAS = [
  'TermUrlsDto',
  'TermRecordDto',
  'VenueRecordDto',
  'OrganizerRecordDto',
  'EventRecordDto',
  'DateDetailsDto',
  'CostDetailsDto',
  'ImageDto',
  'ErrorBodyDto',
  'ErrorDataDto',
];

const HEADERS: Record<string, Schema> = {
  'X-Request-Id': {
    description: 'The request ID: a valid incoming `X-Request-Id` echoed, else a new UUID.',
    required: true,
    schema: { type: 'string', example: '3f1c2a9e-8a51-4f57-9d0b-0c1f2f6b8e21' },
  },
  'X-Total': {
    description: 'Matches the caller may see.',
    required: true,
    schema: { type: 'integer', minimum: 0, example: 42 },
  },
  'X-TotalPages': {
    description: 'Pages of `per_page` items.',
    required: true,
    schema: { type: 'integer', minimum: 0, example: 5 },
  },
  Link: {
    description: 'The next and previous pages (`rel="next"`, `rel="prev"`), when there are any.',
    schema: { type: 'string' },
  },
  Location: {
    description: 'The URL of the created record.',
    required: true,
    schema: { type: 'string', format: 'uri' },
  },
  'WWW-Authenticate': {
    description: '`Bearer`.',
    required: true,
    schema: { type: 'string', example: 'Bearer' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', example: 5 },
  },
  'Idempotency-Replayed': {
    description:
      '`true` when this is the stored answer of an earlier POST with the same `Idempotency-Key` (docs/api.md §13); nothing was written.',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-RateLimit-Limit': {
    description: 'Requests per client per minute (when rate limiting is on).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current minute (when rate limiting is on).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the budget is full again (when rate limiting is on).',
    schema: { type: 'integer' },
  },
  ETag: {
    description:
      'Strong validator of the body: the same for the same request, caller and language while the body is unchanged, on every instance.',
    required: true,
    schema: { type: 'string', example: '"q3Jq0n3H0b1mRkV3Y8tJb2x9d1A"' },
  },
  WriteETag: {
    description:
      'The ETag a GET of the record by the same caller in the same language carries after this write (for the next If-Match). None after a permanent delete.',
    schema: { type: 'string', example: '"q3Jq0n3H0b1mRkV3Y8tJb2x9d1A"' },
  },
  'Cache-Control': {
    description: '`no-cache, public` without a token, `no-cache, private` with one.',
    required: true,
    schema: { type: 'string', example: 'no-cache, public' },
  },
  Vary: {
    description: 'The request headers the answer depends on.',
    required: true,
    schema: { type: 'string', example: 'Accept-Language, Authorization' },
  },
};

/** The conditional-request headers of docs/api.md §11. */
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'ETags of a copy the client holds (one, a comma list, or `*`; weak comparison): 304 without a body while one is current.',
  schema: { type: 'string', example: '"q3Jq0n3H0b1mRkV3Y8tJb2x9d1A"' },
};
const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'Write only if the record is unchanged: one of these ETags (strong comparison) equals the one a GET of it by this caller in this `language` carries now, or `*` (it exists). Else 412. Needed with `REQUIRE_IF_MATCH=true` (else 428).',
  schema: { type: 'string', example: '"q3Jq0n3H0b1mRkV3Y8tJb2x9d1A"' },
};

/** Kinds whose creates answer with the new record's ETag. */
const TAGGED_CREATES = /^\/(events|venues|organizers|categories|tags)$/;

/** Kinds whose single-record writes take If-Match. */
const CONDITIONAL_WRITES =
  /^\/(events|venues|organizers|categories|tags)\/(\{id\}|by-slug\/\{slug\})$/;

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The request header of every POST (docs/api.md §13). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: 1–255 visible ASCII characters, unique per request of this caller. ' +
    'A retry with the same key and body gets the first answer again (`Idempotency-Replayed: true`) ' +
    'and writes nothing; another body or path with the key → 422, while the first still runs → 409. ' +
    'Kept IDEMPOTENCY_TTL_HOURS (default 24).',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
  example: '5f0c6a1e-2b7d-4c1a-9e43-8d2f0b6a7c11',
};

/** Statuses only a POST with an Idempotency-Key answers. */
const IDEMPOTENCY_STATUSES = [409, 422];

/** Headers every response may carry. */
const COMMON_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

const ERROR_STATUSES = [...new Set(Object.values(ERROR_STATUS))].sort((a, b) => a - b);

/** Codes per status, for the error responses' descriptions. */
function codesOf(status: number): string[] {
  const codes = Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([key]) => wireCode(key as keyof typeof ERROR_STATUS));
  return [...new Set(codes)];
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated (missing, invalid or expired token where one is needed)',
  403: 'Not allowed',
  404: 'Not found',
  409: 'An earlier request with this Idempotency-Key is still running',
  410: 'In the trash',
  413: 'Body larger than 1 MiB',
  415: 'Body neither JSON nor a form',
  422: 'Idempotency-Key already used for another request',
  429: 'Too many requests',
  412: 'If-Match does not hold: the record changed; nothing was written',
  428: 'If-Match is required (REQUIRE_IF_MATCH) and missing',
  500: 'Unexpected error',
  503: 'Unavailable (database unreachable or request time-out)',
};

/** Statuses an operation can answer besides its success. */
function errorStatusesOf(path: string, method: string, hasBody: boolean): number[] {
  const statuses = new Set<number>([400, 401, 404, 429, 500, 503]);
  const single = path.includes('{');
  // Every route but the index and this document checks who may see or change what.
  if (path !== '/' && path !== '/doc') statuses.add(403);
  if (single && path !== '/categories/{id}' && path !== '/tags/{id}') statuses.add(410);
  if (hasBody) {
    statuses.add(413);
    statuses.add(415);
  }
  if (isConditionalWrite(path, method)) {
    statuses.add(412);
    statuses.add(428);
  }
  if (method === 'post') for (const status of IDEMPOTENCY_STATUSES) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

function isConditionalWrite(path: string, method: string): boolean {
  return method !== 'get' && CONDITIONAL_WRITES.test(path);
}

export function finishOpenApi(document: OpenAPIObject): void {
  const components = (document.components ??= {}) as Schema;
  components.headers = { ...(components.headers ?? {}), ...HEADERS };
  components.responses = { ...(components.responses ?? {}) };
  for (const status of ERROR_STATUSES) {
    components.responses[`Error${status}`] = errorResponse(status);
  }
  const schemas = components.schemas as Record<string, Schema>;
  fixSchemas(schemas);

  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Schema)[method] as Schema | undefined;
      if (!operation) continue;
      fixOperation(path, method, operation);
    }
  }
  walk(document, fixNumbers);
}

function errorResponse(status: number): Schema {
  const headers: Schema = Object.fromEntries(COMMON_HEADERS.map((name) => [name, header(name)]));
  if (status === 401) headers['WWW-Authenticate'] = header('WWW-Authenticate');
  if (status === 429) headers['Retry-After'] = { ...header('Retry-After') };
  if (status === 503) headers['Retry-After'] = header('Retry-After');
  // A stored 4xx answer of a POST comes back as a replay.
  if (status >= 400 && status < 500)
    headers['Idempotency-Replayed'] = header('Idempotency-Replayed');
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}: ${codesOf(status)
      .map((c) => `\`${c}\``)
      .join(', ')}`,
    headers,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
  };
}

function fixOperation(path: string, method: string, operation: Schema): void {
  // Public reads take an optional token: context=edit and unpublished records need one.
  if (!operation.security) operation.security = [{}, { bearer: [] }];

  const hasBody = Boolean(operation.requestBody);
  const conditionalWrite = isConditionalWrite(path, method);
  const responses: Schema = {};
  let listHeaders: Schema = {};
  for (const [status, response] of Object.entries(operation.responses as Schema)) {
    if (status === 'default' || status === '304') continue;
    const headers: Schema = Object.fromEntries(COMMON_HEADERS.map((name) => [name, header(name)]));
    if (status === '201') headers.Location = header('Location');
    if (method === 'post') headers['Idempotency-Replayed'] = header('Idempotency-Replayed');
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
    if (status === '201' && TAGGED_CREATES.test(path)) headers.ETag = header('WriteETag');
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
  if (method === 'post') addHeaderParameter(operation, IDEMPOTENCY_KEY_PARAMETER);

  for (const parameter of (operation.parameters ?? []) as Schema[]) {
    fixParameter(parameter);
  }
  const body = operation.requestBody?.content?.['application/json'];
  if (body) {
    // Forms are read like JSON (WordPress clients send them).
    operation.requestBody.content['application/x-www-form-urlencoded'] = { schema: body.schema };
  }
}

const CACHING_HEADERS = {
  ETag: header('ETag'),
  'Cache-Control': header('Cache-Control'),
  Vary: header('Vary'),
};

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

function fixSchemas(schemas: Record<string, Schema>): void {
  for (const [name, schema] of Object.entries(schemas)) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const isInput = /^(Create|Update)/.test(name);
    for (const [field, property] of Object.entries(properties)) {
      if (isInput && field === 'image') properties[field] = { ...IMAGE_INPUT };
      if (isInput && (field === 'date' || field === 'date_utc') && property.type === 'object')
        properties[field] = { ...DATE_INPUT };
      if (isInput && property.oneOf && WIRE_DATES.has(field))
        properties[field] = { ...DATE_INPUT, description: property.description };
      if (!isInput && WIRE_DATES.has(field) && property.type === 'string')
        properties[field] = { ...property, ...WIRE_DATE };
      if (!isInput && (field === 'url' || field === 'rest_url'))
        properties[field] = { ...property, format: 'uri' };
    }
  }
  // Inline venues and organizers of an event write: `{id}` or the fields of a new one.
  for (const [name, kind] of [
    ['venue', 'CreateVenueDto'],
    ['organizer', 'CreateOrganizerDto'],
  ] as const) {
    for (const input of ['CreateEventDto', 'UpdateEventDto']) {
      const property = schemas[input]?.properties?.[name] as Schema | undefined;
      if (property) walk(property, (node) => inlineObject(node, kind));
    }
  }
  // An empty currency_position (no cost) is no enum member: a pattern keeps generated enums valid.
  const position = schemas.CostDetailsDto?.properties?.currency_position as Schema | undefined;
  if (position) {
    delete position.enum;
    Object.assign(position, {
      type: 'string',
      pattern: '^(prefix|postfix)?$',
      description: '`prefix` or `postfix`; `""` when the cost has no currency.',
      example: 'prefix',
    });
  }
  const data = schemas.ErrorDataDto;
  if (data?.properties) {
    data.properties.status = {
      type: 'integer',
      description: 'The HTTP status, equal to the response status.',
    };
    data.properties.params = {
      description:
        '`rest_missing_callback_param`: the missing names; `rest_invalid_param`: name → reason.',
      oneOf: [
        { type: 'array', items: { type: 'string' } },
        { type: 'object', additionalProperties: { type: 'string' } },
      ],
    };
  }
  for (const name of CLOSED_SCHEMAS) {
    if (schemas[name]) schemas[name].additionalProperties = false;
  }
}

/** An untyped object branch of an event's venue/organizer input: `{id}` or a new record. */
function inlineObject(node: Schema, kind: string): void {
  const branches = node.oneOf as Schema[] | undefined;
  if (!branches) return;
  node.oneOf = branches.flatMap((branch) =>
    branch.type === 'object' && !branch.properties && !branch.$ref
      ? [
          {
            type: 'object',
            required: ['id'],
            properties: { id: { type: 'integer', minimum: 1 } },
            description: 'An existing record by ID',
          },
          { $ref: `#/components/schemas/${kind}` },
        ]
      : [branch],
  );
}

/** `number` → `integer` everywhere but for the known decimals. */
function fixNumbers(schema: Schema, key: string | undefined): void {
  if (schema.type === 'number' && !(key && DECIMALS.has(key))) schema.type = 'integer';
}

/** Calls `visit` on every object of the document with the property name it sits under. */
function walk(
  node: unknown,
  visit: (schema: Schema, key: string | undefined) => void,
  key?: string,
): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit, key);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Schema;
  // A parameter's schema sits under its name.
  const name = typeof schema.name === 'string' && schema.in ? schema.name : undefined;
  visit(schema, key);
  for (const [child, value] of Object.entries(schema)) {
    const under =
      child === 'items' || child === 'schema' || child === 'oneOf' ? (name ?? key) : child;
    walk(value, visit, child === 'properties' ? undefined : under);
  }
}
