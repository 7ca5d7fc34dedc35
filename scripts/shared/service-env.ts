/*
 * The environment the benches and the soak start the built service with:
 * only what it needs, so nothing of the caller's environment or a .env file
 * leaks in, with the rate limit off and only warnings and errors logged.
 */

/** The benches' HS256 secret when AUTH_JWT_SECRET is unset or too short. */
export const DEFAULT_SECRET = 'calendar-bench-secret-long-enough-for-hs256-0123456789';

/** What a bench takes from its caller's environment, for the service and its own requests. */
export interface BenchSettings {
  secret: string;
  siteZone: string;
  publicSiteUrl: string;
  defaultLanguage: string;
  maxPerPage: string;
}

/** The caller's settings, else the service's defaults (and DEFAULT_SECRET). */
export function benchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  return {
    secret:
      (env.AUTH_JWT_SECRET?.length ?? 0) >= 32 ? (env.AUTH_JWT_SECRET as string) : DEFAULT_SECRET,
    siteZone: env.SITE_TIMEZONE || 'UTC',
    publicSiteUrl: env.PUBLIC_SITE_URL || 'http://localhost:3000',
    defaultLanguage: env.DEFAULT_LANGUAGE || 'nl',
    maxPerPage: env.MAX_PER_PAGE || '50',
  };
}

/**
 * The service's whole environment: PATH, HOME, production mode, `secret`,
 * no rate limit, LOG_LEVEL=warn, then `env` (the database, a port, the
 * settings of settingsEnv, …), which wins.
 */
export function serviceEnv(secret: string, env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    AUTH_JWT_SECRET: secret,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    ...env,
  };
}

/** A bench's settings as the service's variables (the secret goes to serviceEnv). */
export function settingsEnv(settings: BenchSettings): Record<string, string> {
  return {
    SITE_TIMEZONE: settings.siteZone,
    PUBLIC_SITE_URL: settings.publicSiteUrl,
    DEFAULT_LANGUAGE: settings.defaultLanguage,
    MAX_PER_PAGE: settings.maxPerPage,
  };
}
