/**
 * Prints an HS256 bearer token signed with AUTH_JWT_SECRET.
 *
 *   npm run token -- --sub 1 --role editor [--expires 1h]
 *
 * Reads the environment, then a `.env` file in the working directory if there
 * is one (variables already set win). AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE,
 * when set, become the token's `iss` and `aud`, as the service expects.
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isRole, ROLES } from '../src/auth/auth-user';
import { signToken } from '../src/auth/token.service';
import { parseId } from '../src/common/validation/input-parsing';

const USAGE = 'usage: npm run token -- --sub <user id> --role <role> [--expires 1h]';
const PERIOD =
  /^[1-9]\d{0,5} ?(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|y|yrs?|years?)$/i;

class UsageError extends Error {}

function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');

  let values: { sub?: string; role?: string; expires?: string };
  try {
    ({ values } = parseArgs({
      options: {
        sub: { type: 'string' },
        role: { type: 'string' },
        expires: { type: 'string', default: '1h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${USAGE})`);
  }

  const id = parseId(values.sub);
  if (id === undefined) {
    throw new UsageError(`--sub must be a positive integer user id (got "${values.sub ?? ''}")`);
  }
  if (!isRole(values.role)) {
    throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got "${values.role ?? ''}")`);
  }
  const expires = values.expires ?? '1h';
  if (!PERIOD.test(expires)) {
    throw new UsageError(`--expires must be a period such as 30m, 1h, 7d (got "${expires}")`);
  }
  const secret = env('AUTH_JWT_SECRET');
  if (!secret) throw new UsageError('AUTH_JWT_SECRET is not set (environment or .env)');
  if (secret.length < 32) {
    throw new UsageError('AUTH_JWT_SECRET must be at least 32 characters long');
  }

  const token = await signToken(
    new TextEncoder().encode(secret),
    { id, role: values.role },
    expires,
    { issuer: env('AUTH_JWT_ISSUER'), audience: env('AUTH_JWT_AUDIENCE') },
  );
  process.stdout.write(`${token}\n`);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`token: ${message}\n`);
  process.exit(1);
});
