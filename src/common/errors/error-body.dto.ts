/** `data` of an error body. */
export class ErrorDataDto {
  /** The HTTP status, equal to the response status. */
  status: number;
  /** rest_missing_callback_param: the missing names; rest_invalid_param: name → reason. */
  params?: string[] | Record<string, string>;
  /** term_exists: the ID of the term that has the name already. */
  term_id?: number;
  /** rest_feed_too_large: how many events the feed would hold. */
  events?: number;
  /** rest_feed_too_large: the most one feed may hold (ICAL_MAX_EVENTS). */
  limit?: number;
  /** rest_batch_rolled_back, rest_batch_not_executed (in a batch's results): the operation that failed. */
  failed_operation?: number;
}

/** Every error response (docs/api.md §8). */
export class ErrorBodyDto {
  /** Stable machine-readable code, e.g. rest_invalid_param. */
  code: string;
  /** Human-readable text in the request's language. */
  message: string;
  data: ErrorDataDto;
}
