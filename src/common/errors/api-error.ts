import { ErrorKey, ERROR_STATUS } from './error-codes';

/** Why one parameter was rejected: a reason key of the catalogue plus its arguments. */
export interface InvalidReason {
  reason: string;
  args?: Record<string, string | number>;
}

/**
 * The one error type services throw. The global filter turns it into the
 * contract's `{code, message, data}` body in the request's language.
 */
export class ApiError extends Error {
  constructor(
    readonly key: ErrorKey,
    readonly details: {
      /** rest_missing_callback_param: the missing names. */
      missing?: string[];
      /** rest_invalid_param: the rejected parameters and why. */
      invalid?: Record<string, InvalidReason>;
      /** Extra members of `data` (e.g. term_exists' term_id). */
      data?: Record<string, unknown>;
      /** Arguments for the message template. */
      args?: Record<string, string | number>;
      /** Extra response headers (Retry-After, WWW-Authenticate). */
      headers?: Record<string, string>;
    } = {},
  ) {
    super(key);
  }

  get status(): number {
    return ERROR_STATUS[this.key];
  }

  static invalid(name: string, reason: string, args?: Record<string, string | number>): ApiError {
    return new ApiError('rest_invalid_param', {
      invalid: { [name]: { reason, args: { name, ...args } } },
    });
  }

  static missing(...names: string[]): ApiError {
    return new ApiError('rest_missing_callback_param', { missing: names });
  }

  static unauthorized(): ApiError {
    return new ApiError('rest_unauthorized', { headers: { 'WWW-Authenticate': 'Bearer' } });
  }

  static forbidden(): ApiError {
    return new ApiError('rest_forbidden');
  }

  static noRoute(): ApiError {
    return new ApiError('rest_no_route');
  }
}
