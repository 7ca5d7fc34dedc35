import { registerAs } from '@nestjs/config';
import { Language } from '../i18n/language';
import { parseDurationList } from './durations';
import { parseReadUrls } from './env.validation';

export const NAMESPACE = 'calendar/events/v1';

/** Joins URL path pieces with single slashes: ('/', 'a/b') → '/a/b'. */
export function joinPath(...parts: string[]): string {
  const joined = parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/');
  return `/${joined}`;
}

function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Typed application settings, read once from the validated environment. */
export const appConfig = registerAs('app', () => {
  const basePath = joinPath(env('API_BASE_PATH') ?? '/');
  return {
    production: env('NODE_ENV') === 'production',
    port: Number(env('PORT') ?? 3000),
    databaseUrl: env('DATABASE_URL'),
    databaseReadUrls: parseReadUrls(env('DATABASE_READ_URLS')),
    /**
     * Only SQL that MySQL-compatible distributed engines (TiDB, Vitess) accept: no
     * `SKIP LOCKED`, no multi-table UPDATE (docs/scaling.md).
     */
    portableSql: env('DATABASE_PORTABLE_SQL') === 'true',
    sqlitePath: env('SQLITE_PATH') ?? './data/calendar.sqlite',
    migrationsRun: (env('DB_MIGRATIONS_RUN') ?? 'true') === 'true',
    basePath,
    apiPath: joinPath(basePath, NAMESPACE),
    publicSiteUrl: (env('PUBLIC_SITE_URL') ?? 'http://localhost:3000').replace(/\/+$/, ''),
    defaultLanguage: (env('DEFAULT_LANGUAGE') ?? 'nl') as Language,
    siteTimezone: env('SITE_TIMEZONE') ?? 'UTC',
    maxPerPage: Number(env('MAX_PER_PAGE') ?? 50),
    recurrenceHorizonMonths: Number(env('RECURRENCE_HORIZON_MONTHS') ?? 24),
    icalMaxEvents: Number(env('ICAL_MAX_EVENTS') ?? 50000),
    icalRateLimitPerMinute: Number(env('ICAL_RATE_LIMIT_PER_MINUTE') ?? 60),
    search: {
      /** Full-text searches this instance runs at once (SearchGate); 0 = no bound. */
      maxConcurrent: Number(env('SEARCH_MAX_CONCURRENT') ?? 4),
      /** How long a search may wait for a turn before its 503. */
      waitMs: Number(env('SEARCH_WAIT_MS') ?? 2000),
    },
    rateLimitPerMinute: Number(env('RATE_LIMIT_PER_MINUTE') ?? 1200),
    redisUrl: env('REDIS_URL'),
    corsOrigins: (env('CORS_ORIGINS') ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    logLevel: env('LOG_LEVEL') ?? 'info',
    requestTimeoutMs: Number(env('REQUEST_TIMEOUT_MS') ?? 30000),
    webhooks: {
      timeoutMs: Number(env('WEBHOOK_TIMEOUT_MS') ?? 5000),
      /** Delays between attempts, in milliseconds. */
      retrySchedule:
        parseDurationList(env('WEBHOOK_RETRY_SCHEDULE') ?? '5s,1m,10m,1h,6h,24h') ?? [],
      disableAfter: Number(env('WEBHOOK_DISABLE_AFTER') ?? 20),
      allowHttp: env('WEBHOOK_ALLOW_HTTP') === 'true',
      allowPrivateTargets: env('WEBHOOK_ALLOW_PRIVATE_TARGETS') === 'true',
      worker: (env('WEBHOOKS_WORKER') ?? 'true') === 'true',
      retentionDays: Number(env('WEBHOOK_RETENTION_DAYS') ?? 30),
    },
    imports: {
      /** This instance runs due URL imports. */
      worker: (env('IMPORTS_WORKER') ?? 'true') === 'true',
      /** How often it looks for due imports. */
      pollMs: Number(env('IMPORTS_POLL_MS') ?? 30000),
    },
    syncRetentionDays: Number(env('SYNC_RETENTION_DAYS') ?? 30),
    requireIfMatch: env('REQUIRE_IF_MATCH') === 'true',
    idempotencyTtlHours: Number(env('IDEMPOTENCY_TTL_HOURS') ?? 24),
    /** Bearer token of GET /metrics; unset: no metrics are kept and /metrics does not exist. */
    metricsToken: env('METRICS_TOKEN'),
    auth: {
      jwtSecret: env('AUTH_JWT_SECRET'),
      jwksUrl: env('AUTH_JWKS_URL'),
      issuer: env('AUTH_JWT_ISSUER'),
      audience: env('AUTH_JWT_AUDIENCE'),
    },
  };
});

export type AppConfig = ReturnType<typeof appConfig>;
