/* The response headers and the header parameters the document declares (docs/api.md §11, §13). */

export type Schema = Record<string, any>;

export const HEADERS: Record<string, Schema> = {
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
    required: true,
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
export const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'ETags of a copy the client holds (one, a comma list, or `*`; weak comparison): 304 without a body while one is current.',
  schema: { type: 'string', example: '"q3Jq0n3H0b1mRkV3Y8tJb2x9d1A"' },
};
export const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'Write only if the record is unchanged: one of these ETags (strong comparison) equals the one a GET of it by this caller in this `language` carries now, or `*` (it exists). Else 412. Needed with `REQUIRE_IF_MATCH=true` (else 428).',
  schema: { type: 'string', example: '"q3Jq0n3H0b1mRkV3Y8tJb2x9d1A"' },
};

export const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The request header of every POST (docs/api.md §13). */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST (or upsert PUT) safe to retry: 1–255 visible ASCII characters, unique per request of this caller. ' +
    'A retry with the same key and body gets the first answer again (`Idempotency-Replayed: true`) ' +
    'and writes nothing; another body or path with the key → 422, while the first still runs → 409. ' +
    'Kept IDEMPOTENCY_TTL_HOURS (default 24).',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
  example: '5f0c6a1e-2b7d-4c1a-9e43-8d2f0b6a7c11',
};

/** Statuses only a POST with an Idempotency-Key answers. */
export const IDEMPOTENCY_STATUSES = [409, 422];

/** Headers every response may carry. */
export const COMMON_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

export const CACHING_HEADERS = {
  ETag: header('ETag'),
  'Cache-Control': header('Cache-Control'),
  Vary: header('Vary'),
};
