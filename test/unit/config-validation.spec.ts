import { ConfigurationError, validateEnvironment } from '../../src/config/env.validation';

function failure(env: Record<string, string>): string {
  try {
    validateEnvironment(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('validateEnvironment', () => {
  it('accepts an empty environment and treats empty values as unset', () => {
    expect(() => validateEnvironment({})).not.toThrow();
    expect(() =>
      validateEnvironment({ PORT: '', DATABASE_URL: '', AUTH_JWT_SECRET: '' }),
    ).not.toThrow();
  });

  it('accepts a full valid configuration', () => {
    const env = {
      PORT: '8080',
      DATABASE_URL: 'mysql://user:pass@db:3306/calendar',
      SQLITE_PATH: ':memory:',
      DB_MIGRATIONS_RUN: 'false',
      AUTH_JWT_SECRET: 'x'.repeat(32),
      API_BASE_PATH: '/wp-json',
      PUBLIC_SITE_URL: 'https://example.org',
      DEFAULT_LANGUAGE: 'en',
      SITE_TIMEZONE: 'Europe/Amsterdam',
      MAX_PER_PAGE: '100',
      RATE_LIMIT_PER_MINUTE: '0',
      REDIS_URL: 'redis://127.0.0.1:6379',
      LOG_LEVEL: 'debug',
      REQUIRE_IF_MATCH: 'true',
      DATABASE_PORTABLE_SQL: 'true',
    };
    expect(validateEnvironment(env)).toBe(env);
  });

  it.each([
    [{ PORT: 'abc' }, /^PORT /],
    [{ DATABASE_URL: 'postgres://x/y' }, /^DATABASE_URL /],
    [{ SITE_TIMEZONE: 'Mars/Base' }, /^SITE_TIMEZONE /],
    [{ MAX_PER_PAGE: '0' }, /^MAX_PER_PAGE /],
    [{ DEFAULT_LANGUAGE: 'fr' }, /^DEFAULT_LANGUAGE /],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL /],
    [{ DB_MIGRATIONS_RUN: 'maybe' }, /^DB_MIGRATIONS_RUN /],
    [{ API_BASE_PATH: 'wp-json' }, /^API_BASE_PATH /],
    [{ REQUIRE_IF_MATCH: 'yes' }, /^REQUIRE_IF_MATCH must be true or false/],
    [{ DATABASE_PORTABLE_SQL: '1' }, /^DATABASE_PORTABLE_SQL must be true or false/],
    [{ IDEMPOTENCY_TTL_HOURS: '0' }, /^IDEMPOTENCY_TTL_HOURS /],
    [{ IDEMPOTENCY_TTL_HOURS: '8761' }, /^IDEMPOTENCY_TTL_HOURS /],
    [{ IDEMPOTENCY_TTL_HOURS: '1.5' }, /^IDEMPOTENCY_TTL_HOURS /],
    [{ ICAL_MAX_EVENTS: '0' }, /^ICAL_MAX_EVENTS /],
    [{ ICAL_MAX_EVENTS: 'many' }, /^ICAL_MAX_EVENTS /],
    [{ ICAL_RATE_LIMIT_PER_MINUTE: '-1' }, /^ICAL_RATE_LIMIT_PER_MINUTE /],
    [{ SEARCH_MAX_CONCURRENT: '-1' }, /^SEARCH_MAX_CONCURRENT /],
    [{ SEARCH_MAX_CONCURRENT: 'four' }, /^SEARCH_MAX_CONCURRENT /],
    [{ SEARCH_WAIT_MS: '60001' }, /^SEARCH_WAIT_MS /],
    [{ SEARCH_WAIT_MS: '1.5' }, /^SEARCH_WAIT_MS /],
  ])('%p gives one line naming the variable', (env, pattern) => {
    const message = failure(env);
    expect(message).toMatch(pattern);
    expect(message).not.toContain('\n');
  });

  it('accepts ICAL_MAX_EVENTS from 1 and ICAL_RATE_LIMIT_PER_MINUTE from 0', () => {
    expect(() =>
      validateEnvironment({ ICAL_MAX_EVENTS: '1', ICAL_RATE_LIMIT_PER_MINUTE: '0' }),
    ).not.toThrow();
  });

  it('accepts SEARCH_MAX_CONCURRENT from 0 (no bound) and SEARCH_WAIT_MS from 0 to 60000', () => {
    expect(() =>
      validateEnvironment({ SEARCH_MAX_CONCURRENT: '0', SEARCH_WAIT_MS: '0' }),
    ).not.toThrow();
    expect(() => validateEnvironment({ SEARCH_WAIT_MS: '60000' })).not.toThrow();
  });

  it('accepts IDEMPOTENCY_TTL_HOURS from 1 to 8760', () => {
    expect(() => validateEnvironment({ IDEMPOTENCY_TTL_HOURS: '1' })).not.toThrow();
    expect(() => validateEnvironment({ IDEMPOTENCY_TTL_HOURS: '8760' })).not.toThrow();
  });

  it.each(['abc', '-1', '70000', '80.5'])('PORT=%p names the accepted range', (port) => {
    expect(failure({ PORT: port })).toBe(
      `PORT must be a whole number from 0 to 65535 (got "${port}")`,
    );
  });

  it('never echoes a secret', () => {
    const message = failure({ AUTH_JWT_SECRET: 'short-secret' });
    expect(message).toMatch(/^AUTH_JWT_SECRET must be at least 32 characters/);
    expect(message).not.toContain('short-secret');
  });
});
