import { SetMetadata } from '@nestjs/common';

export const SECRET_FIELDS = 'idempotency:secret-fields';

/**
 * Top-level fields of a route's answer that are never stored with an
 * Idempotency-Key (docs/api.md §13): a secret lives only where it belongs
 * (the endpoint's row), and a replay carries them as null.
 */
export const SecretAnswerFields = (...fields: string[]) => SetMetadata(SECRET_FIELDS, fields);

/** The answer as it is stored: the secret fields set to null. */
export function withoutSecrets(answer: unknown, fields: readonly string[]): unknown {
  if (fields.length === 0 || answer === null || typeof answer !== 'object') return answer;
  const kept: Record<string, unknown> = { ...(answer as Record<string, unknown>) };
  for (const field of fields) if (field in kept) kept[field] = null;
  return kept;
}
