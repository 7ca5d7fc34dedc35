import { ERROR_STATUS, wireCode } from '../../common/errors/error-codes';
import { COMMON_HEADERS, header, IDEMPOTENCY_STATUSES, type Schema } from './headers';

/* Every error status an operation can answer, with the error body (docs/api.md, "Errors"). */

/** Kinds whose creates answer with the new record's ETag. */
export const TAGGED_CREATES = /^\/(events|venues|organizers|categories|tags)$/;

/** Kinds whose single-record writes take If-Match. */
const CONDITIONAL_WRITES =
  /^\/(events|venues|organizers|categories|tags)\/(\{id\}|by-slug\/\{slug\}|by-external-id\/\{source\}\/\{id\})$/;

/** The upserts by external key (docs/api.md §17): a PUT that creates or updates. */
export const UPSERTS = /^\/(events|venues|organizers)\/by-external-id\/\{source\}\/\{id\}$/;

/** Routes whose writes set `external_id`: a key another record holds is 409. */
const KEYED_WRITES = /^\/(events|venues|organizers)(\/|$)/;

/** Every POST, and the upserts, take Idempotency-Key (docs/api.md §13). */
export function takesIdempotencyKey(path: string, method: string): boolean {
  return method === 'post' || (method === 'put' && UPSERTS.test(path));
}

export const ERROR_STATUSES = [...new Set(Object.values(ERROR_STATUS))].sort((a, b) => a - b);

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
  409: 'Conflict (an earlier request with this Idempotency-Key is still running; another record has this external_id; another URL import has this source)',
  410: 'In the trash',
  413: 'Body larger than 1 MiB (an uploaded iCalendar import: 10 MiB)',
  415: 'Body neither JSON nor a form',
  422: 'Idempotency-Key already used for another request',
  429: 'Too many requests',
  412: 'If-Match does not hold: the record changed; nothing was written',
  428: 'If-Match is required (REQUIRE_IF_MATCH) and missing',
  500: 'Unexpected error',
  503: 'Unavailable (database unreachable or request time-out)',
};

/** Statuses an operation can answer besides its success. */
export function errorStatusesOf(path: string, method: string, hasBody: boolean): number[] {
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
  if (takesIdempotencyKey(path, method))
    for (const status of IDEMPOTENCY_STATUSES) statuses.add(status);
  if (method !== 'get' && method !== 'delete' && KEYED_WRITES.test(path)) statuses.add(409);
  return [...statuses].sort((a, b) => a - b);
}

export function isConditionalWrite(path: string, method: string): boolean {
  return method !== 'get' && CONDITIONAL_WRITES.test(path);
}

export function errorResponse(status: number): Schema {
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
