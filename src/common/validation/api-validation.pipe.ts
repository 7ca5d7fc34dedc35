import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError, InvalidReason } from '../errors/api-error';
import { failuresOf } from './validation-failures';
import { memoizeValidationMetadata } from './validation-metadata-memo';

/** The constraint of a required parameter that is missing. */
const REQUIRED = 'isDefined';

/**
 * The global pipe: transforms and whitelists DTOs (unknown fields are dropped,
 * as the contract says), and turns validation failures into the contract's
 * two validation errors.
 */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: false,
      // Every check runs: failuresOf picks the one that names the problem.
      stopAtFirstError: false,
      validationError: { target: true, value: false },
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: (errors) => toApiError(errors),
    });
    memoizeValidationMetadata();
  }

  /**
   * Named path parameters stay text: their own pipes read them (`1e0`, `0x1`
   * or a 21-digit ID must not become a number before IdParamPipe sees it).
   */
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }
}

export function toApiError(errors: ValidationError[]): ApiError {
  const failures = failuresOf(errors);
  const missing = [
    ...new Set(failures.filter((f) => f.constraint === REQUIRED).map((f) => f.name)),
  ];
  if (missing.length > 0) return ApiError.missing(...missing);
  const invalid: Record<string, InvalidReason> = {};
  for (const failure of failures) {
    invalid[failure.name] ??= { reason: failure.constraint, args: { name: failure.name } };
  }
  return new ApiError('rest_invalid_param', { invalid });
}
