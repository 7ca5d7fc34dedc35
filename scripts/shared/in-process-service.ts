import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { SignJWT } from 'jose';

const SECRET = 'calendar-bench-secret-long-enough-for-hs256-0123456789';

export interface InProcessService {
  app: INestApplication;
  /** Absolute URL of {api}. */
  base: string;
  /** A bearer token of the given role, valid for two hours. */
  token: string;
}

/**
 * The service inside the bench's own process, on a free port of 127.0.0.1:
 * on `databaseUrl`, or on a new embedded SQLite file when it is empty. Logs
 * and rate limiting are off; `env` adds settings (e.g. webhook allowances).
 */
export async function startInProcessService(options: {
  databaseUrl: string;
  role: 'administrator' | 'editor';
  env?: Record<string, string>;
}): Promise<InProcessService> {
  Object.assign(process.env, {
    LOG_LEVEL: 'silent',
    AUTH_JWT_SECRET: SECRET,
    DATABASE_URL: options.databaseUrl,
    SQLITE_PATH: join(mkdtempSync(join(tmpdir(), 'calendar-bench-')), 'calendar.sqlite'),
    RATE_LIMIT_PER_MINUTE: '0',
    ...options.env,
  });
  // Imported after the environment is set: the configuration is read at import.
  const { NestFactory } = await import('@nestjs/core');
  const { AppModule } = await import('../../src/app.module');
  const { APP_OPTIONS, configureApp } = await import('../../src/app.setup');
  const app = configureApp(await NestFactory.create(AppModule, APP_OPTIONS));
  await app.listen(0, '127.0.0.1');
  const token = await new SignJWT({ role: options.role })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(options.role === 'administrator' ? '1' : '2')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(SECRET));
  return { app, base: `${await app.getUrl()}/calendar/events/v1`, token };
}
