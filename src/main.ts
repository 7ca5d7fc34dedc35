// First: V8 settings before any other module allocates (src/v8-flags.ts).
import './v8-flags';
// Second: tracing, before http, express, mysql2 and ioredis are required (src/tracing.ts).
import { tracing } from './start-tracing';
import 'reflect-metadata';
// Then @nestjs/common, its loggers' date formatters built on first use (src/load-nest.ts).
import './load-nest';
import { INestApplication, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { APP_OPTIONS, configureApp } from './app.setup';
import { enableGracefulShutdown } from './common/http/graceful-shutdown';
import { releaseOptimizingCompilers } from './common/runtime/start-up-compilers';
import { collectStartUpGarbage } from './common/runtime/start-up-garbage';
import { appConfig, joinPath } from './config/app.config';
import { ConfigurationError, validateEnvironment } from './config/env.validation';

async function bootstrap(): Promise<void> {
  // Validate before anything else is loaded, so a bad value gives one clear line.
  validateEnvironment(process.env);
  const { AppModule } = await import('./app.module');
  const app = configureApp(await NestFactory.create(AppModule, APP_OPTIONS));
  const config = app.get<ConfigType<typeof appConfig>>(appConfig.KEY);
  // Requests end by REQUEST_TIMEOUT_MS (503); give them that long to finish on SIGTERM.
  enableGracefulShutdown(app, {
    drainTimeoutMs: config.requestTimeoutMs + 1000,
    // The spans of the last requests are sent before the process ends (bounded).
    afterClose: () => withinMs(2000, tracing?.shutdown() ?? Promise.resolve()),
  });
  // Routes, hooks and workers first (listen would run init itself), then what start-up
  // allocated and ran once is given back before the first request, and requests get the
  // optimizing compilers start-up ran without (src/v8-flags.ts).
  await app.init();
  // Memory given back, never a reason not to start.
  await collectStartUpGarbage().catch((error: Error) =>
    new Logger('Main').warn(`start-up collection skipped: ${error.message}`),
  );
  releaseOptimizingCompilers();
  await app.listen(config.port);
  logListening(app);
}

function withinMs(ms: number, work: Promise<void>): Promise<void> {
  return Promise.race([work, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
}

/** One line with the addresses to open, after the start-up lines. */
function logListening(app: INestApplication): void {
  const { apiPath, basePath } = app.get<ConfigType<typeof appConfig>>(appConfig.KEY);
  const { port } = app.getHttpServer().address() as AddressInfo;
  const origin = `http://localhost:${port}`;
  new Logger('Main').log(
    `Listening on ${origin}: API ${origin}${apiPath}, OpenAPI ${origin}${joinPath(apiPath, 'doc')}, ` +
      `Swagger UI ${origin}${joinPath(basePath, 'docs')}, health ${origin}/health/ready`,
  );
}

bootstrap().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    error instanceof ConfigurationError
      ? `Configuration error: ${message}\n`
      : `Start-up failed: ${message}\n`,
  );
  process.exit(1);
});
