import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBooleanString,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { IANAZone } from 'luxon';
import { MAX_RETRY_DELAYS, parseDurationList } from './durations';

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

const MYSQL_URL = /^mysql:\/\/[^\s/]+\/[A-Za-z0-9_$-]+(\?\S*)?$/;

const PORT_RANGE = 'PORT must be a whole number from 0 to 65535';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every environment variable of docs/api.md §10, validated at start-up. */
export class EnvironmentVariables {
  @IsOptional()
  @IsIn(['development', 'production', 'test'])
  NODE_ENV?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: PORT_RANGE })
  @Min(0, { message: PORT_RANGE })
  @Max(65535, { message: PORT_RANGE })
  PORT?: number;

  @IsOptional()
  @Matches(MYSQL_URL, {
    message: 'DATABASE_URL must look like mysql://user:pass@host:port/database',
  })
  DATABASE_URL?: string;

  /** Comma list of read-replica URLs; checked one by one in validateEnvironment. */
  @IsOptional()
  @IsString()
  DATABASE_READ_URLS?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  SQLITE_PATH?: string;

  @IsOptional()
  @IsBooleanString({ message: 'DB_MIGRATIONS_RUN must be true or false' })
  DB_MIGRATIONS_RUN?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'AUTH_JWT_SECRET must be at least 32 characters long' })
  AUTH_JWT_SECRET?: string;

  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'AUTH_JWKS_URL must be an http(s) URL' })
  AUTH_JWKS_URL?: string;

  @IsOptional()
  @IsString()
  AUTH_JWT_ISSUER?: string;

  @IsOptional()
  @IsString()
  AUTH_JWT_AUDIENCE?: string;

  @IsOptional()
  @Matches(/^\/[A-Za-z0-9._~\-/]*$/, { message: 'API_BASE_PATH must be a path starting with /' })
  API_BASE_PATH?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'PUBLIC_SITE_URL must be an http(s) URL' })
  PUBLIC_SITE_URL?: string;

  @IsOptional()
  @IsIn(['nl', 'en'], { message: 'DEFAULT_LANGUAGE must be nl or en' })
  DEFAULT_LANGUAGE?: string;

  /** Checked against the IANA database in validateEnvironment. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  SITE_TIMEZONE?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'MAX_PER_PAGE must be an integer between 1 and 1000' })
  @Min(1, { message: 'MAX_PER_PAGE must be an integer between 1 and 1000' })
  @Max(1000, { message: 'MAX_PER_PAGE must be an integer between 1 and 1000' })
  MAX_PER_PAGE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'RECURRENCE_HORIZON_MONTHS must be an integer between 1 and 120' })
  @Min(1, { message: 'RECURRENCE_HORIZON_MONTHS must be an integer between 1 and 120' })
  @Max(120, { message: 'RECURRENCE_HORIZON_MONTHS must be an integer between 1 and 120' })
  RECURRENCE_HORIZON_MONTHS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'ICAL_MAX_EVENTS must be a whole number of at least 1' })
  @Min(1, { message: 'ICAL_MAX_EVENTS must be a whole number of at least 1' })
  ICAL_MAX_EVENTS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'ICAL_RATE_LIMIT_PER_MINUTE must be a whole number (0 turns it off)' })
  @Min(0, { message: 'ICAL_RATE_LIMIT_PER_MINUTE must be a whole number (0 turns it off)' })
  ICAL_RATE_LIMIT_PER_MINUTE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'SEARCH_MAX_CONCURRENT must be a whole number (0 turns the bound off)' })
  @Min(0, { message: 'SEARCH_MAX_CONCURRENT must be a whole number (0 turns the bound off)' })
  SEARCH_MAX_CONCURRENT?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'SEARCH_WAIT_MS must be a whole number of milliseconds, 0 to 60000' })
  @Min(0, { message: 'SEARCH_WAIT_MS must be a whole number of milliseconds, 0 to 60000' })
  @Max(60000, { message: 'SEARCH_WAIT_MS must be a whole number of milliseconds, 0 to 60000' })
  SEARCH_WAIT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'RATE_LIMIT_PER_MINUTE must be a whole number (0 turns limiting off)' })
  @Min(0, { message: 'RATE_LIMIT_PER_MINUTE must be a whole number (0 turns limiting off)' })
  RATE_LIMIT_PER_MINUTE?: number;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must look like redis://host:port' })
  REDIS_URL?: string;

  @IsOptional()
  @IsString()
  CORS_ORIGINS?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'REQUEST_TIMEOUT_MS must be an integer between 100 and 600000' })
  @Min(100, { message: 'REQUEST_TIMEOUT_MS must be an integer between 100 and 600000' })
  @Max(600000, { message: 'REQUEST_TIMEOUT_MS must be an integer between 100 and 600000' })
  REQUEST_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_TIMEOUT_MS must be an integer between 100 and 60000' })
  @Min(100, { message: 'WEBHOOK_TIMEOUT_MS must be an integer between 100 and 60000' })
  @Max(60000, { message: 'WEBHOOK_TIMEOUT_MS must be an integer between 100 and 60000' })
  WEBHOOK_TIMEOUT_MS?: number;

  /** Checked with parseDurationList in validateEnvironment. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  WEBHOOK_RETRY_SCHEDULE?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_DISABLE_AFTER must be a whole number (0 never disables)' })
  @Min(0, { message: 'WEBHOOK_DISABLE_AFTER must be a whole number (0 never disables)' })
  @Max(1000000, { message: 'WEBHOOK_DISABLE_AFTER must be a whole number (0 never disables)' })
  WEBHOOK_DISABLE_AFTER?: number;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'WEBHOOK_ALLOW_HTTP must be true or false' })
  WEBHOOK_ALLOW_HTTP?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_TARGETS?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'WEBHOOKS_WORKER must be true or false' })
  WEBHOOKS_WORKER?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'IMPORTS_WORKER must be true or false' })
  IMPORTS_WORKER?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'IMPORTS_POLL_MS must be an integer between 50 and 3600000' })
  @Min(50, { message: 'IMPORTS_POLL_MS must be an integer between 50 and 3600000' })
  @Max(3600000, { message: 'IMPORTS_POLL_MS must be an integer between 50 and 3600000' })
  IMPORTS_POLL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'SYNC_RETENTION_DAYS must be an integer between 1 and 3650' })
  @Min(1, { message: 'SYNC_RETENTION_DAYS must be an integer between 1 and 3650' })
  @Max(3650, { message: 'SYNC_RETENTION_DAYS must be an integer between 1 and 3650' })
  SYNC_RETENTION_DAYS?: number;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'REQUIRE_IF_MATCH must be true or false' })
  REQUIRE_IF_MATCH?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'DATABASE_PORTABLE_SQL must be true or false' })
  DATABASE_PORTABLE_SQL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'IDEMPOTENCY_TTL_HOURS must be an integer between 1 and 8760' })
  @Min(1, { message: 'IDEMPOTENCY_TTL_HOURS must be an integer between 1 and 8760' })
  @Max(8760, { message: 'IDEMPOTENCY_TTL_HOURS must be an integer between 1 and 8760' })
  IDEMPOTENCY_TTL_HOURS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_RETENTION_DAYS must be an integer between 1 and 3650' })
  @Min(1, { message: 'WEBHOOK_RETENTION_DAYS must be an integer between 1 and 3650' })
  @Max(3650, { message: 'WEBHOOK_RETENTION_DAYS must be an integer between 1 and 3650' })
  WEBHOOK_RETENTION_DAYS?: number;

  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,256}$/, {
    message: 'METRICS_TOKEN must be 16 to 256 printable characters without spaces',
  })
  METRICS_TOKEN?: string;
}

/**
 * Validates the raw environment. A bad value throws one line naming the
 * variable, which main.ts prints before exiting.
 */
export function validateEnvironment(input: Record<string, unknown>): Record<string, unknown> {
  // An empty value means "unset" (as compose files often leave them).
  const raw = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== ''));
  const env = plainToInstance(EnvironmentVariables, raw, { enableImplicitConversion: false });
  const errors = validateSync(env, { skipMissingProperties: false, stopAtFirstError: true });
  const zone = raw.SITE_TIMEZONE;
  if (typeof zone === 'string' && zone !== '' && !IANAZone.isValidZone(zone)) {
    throw new ConfigurationError(
      `SITE_TIMEZONE must be an IANA time zone such as Europe/Amsterdam (got "${zone}")`,
    );
  }
  if (errors.length > 0) {
    const first = errors[0];
    const message = Object.values(first.constraints ?? {})[0] ?? 'is invalid';
    const shown = /SECRET|TOKEN/.test(first.property) ? '' : ` (got "${String(first.value)}")`;
    throw new ConfigurationError(
      message.startsWith(first.property)
        ? `${message}${shown}`
        : `${first.property} ${message}${shown}`,
    );
  }
  checkReadUrls(raw.DATABASE_READ_URLS, raw.DATABASE_URL);
  const schedule = raw.WEBHOOK_RETRY_SCHEDULE;
  if (typeof schedule === 'string' && parseDurationList(schedule) === undefined) {
    throw new ConfigurationError(
      `WEBHOOK_RETRY_SCHEDULE must be a comma list of 1 to ${MAX_RETRY_DELAYS} delays such as 5s,1m,10m,1h (units ms, s, m, h; each at most 7 days) (got "${schedule}")`,
    );
  }
  return input;
}

/** The comma list of DATABASE_READ_URLS, blanks dropped. */
export function parseReadUrls(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
}

function checkReadUrls(value: unknown, databaseUrl: unknown): void {
  if (typeof value !== 'string') return;
  const urls = parseReadUrls(value);
  // Credentials stay out of the message: only the position of a bad URL is named.
  const bad = urls.findIndex((url) => !MYSQL_URL.test(url));
  if (bad >= 0) {
    throw new ConfigurationError(
      `DATABASE_READ_URLS must be a comma list of mysql://user:pass@host:port/database URLs (entry ${bad + 1} is not)`,
    );
  }
  if (urls.length > 0 && typeof databaseUrl !== 'string') {
    throw new ConfigurationError(
      'DATABASE_READ_URLS needs a MySQL DATABASE_URL: read replicas do not apply to the embedded SQLite database',
    );
  }
}

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}
