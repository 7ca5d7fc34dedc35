import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError, InvalidReason } from '../errors/api-error';

/** Class-validator constraint names checked in this order when several fail. */
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
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: (errors) => toApiError(errors),
    });
  }

  /**
   * Named path parameters stay text: their own pipes read them (`1e0`, `0x1`
   * or a 21-digit ID must not become a number before IdParamPipe sees it).
   */
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }
}

interface Failure {
  name: string;
  constraint: string;
}

function flatten(errors: ValidationError[], prefix = ''): Failure[] {
  return errors.flatMap((error) => {
    const name = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.keys(error.constraints ?? {}).map((constraint) => ({ name, constraint }));
    return [...own, ...flatten(error.children ?? [], name)];
  });
}

export function toApiError(errors: ValidationError[]): ApiError {
  const failures = flatten(errors);
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
