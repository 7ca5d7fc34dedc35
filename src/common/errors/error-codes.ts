/**
 * Every error code of docs/api.md §8 with its HTTP status. Adding a code
 * here makes the compiler demand a message for it in both catalogues.
 */
export const ERROR_STATUS = {
  rest_no_route: 404,
  rest_invalid_namespace: 404,
  rest_missing_callback_param: 400,
  rest_invalid_param: 400,
  rest_invalid_json: 400,
  rest_forbidden: 403,
  rest_unauthorized: 401,
  'rest-event-not-found': 404,
  'rest-venue-not-found': 404,
  'rest-organizer-not-found': 404,
  'rest-category-not-found': 404,
  'rest-tag-not-found': 404,
  'rest-webhook-not-found': 404,
  'rest-webhook-delivery-not-found': 404,
  'rest-import-not-found': 404,
  'event-not-accessible': 403,
  'venue-not-accessible': 403,
  'organizer-not-accessible': 403,
  'event-no-longer-available': 403,
  'event-password-protected': 403,
  'event-archive-page-not-found': 404,
  'venue-archive-page-not-found': 404,
  'organizer-archive-page-not-found': 404,
  'event-is-in-trash': 410,
  'venue-is-in-trash': 410,
  'organizer-is-in-trash': 410,
  term_exists: 400,
  rest_external_id_taken: 409,
  rest_import_source_taken: 409,
  rest_feed_too_large: 400,
  rest_sync_cursor_expired: 410,
  rest_precondition_failed: 412,
  rest_precondition_required: 428,
  rest_idempotency_key_reused: 422,
  rest_idempotency_key_in_use: 409,
  rest_batch_rolled_back: 424,
  rest_batch_not_executed: 424,
  rest_payload_too_large: 413,
  rest_unsupported_media_type: 415,
  rest_too_many_requests: 429,
  rest_service_unavailable: 503,
  rest_request_timeout: 503,
  rest_search_busy: 503,
  rest_internal_error: 500,
} as const;

/**
 * Message keys. Most equal the wire code; `rest_unauthorized` is the 401
 * flavour of `rest_forbidden` and goes on the wire as `rest_forbidden`.
 */
export type ErrorKey = keyof typeof ERROR_STATUS;

const WIRE_CODE: Partial<Record<ErrorKey, string>> = {
  rest_unauthorized: 'rest_forbidden',
  rest_request_timeout: 'rest_service_unavailable',
  rest_search_busy: 'rest_service_unavailable',
};

export function wireCode(key: ErrorKey): string {
  return WIRE_CODE[key] ?? key;
}
