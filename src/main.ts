import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { APP_OPTIONS, configureApp } from './app.setup';
import { enableGracefulShutdown } from './common/http/graceful-shutdown';
import { ConfigurationError, validateEnvironment } from './config/env.validation';

async function bootstrap(): Promise<void> {
  // Validate before anything else is loaded, so a bad value gives one clear line.
  validateEnvironment(process.env);
  const { AppModule } = await import('./app.module');
  const app = configureApp(await NestFactory.create(AppModule, APP_OPTIONS));
  // Requests end by REQUEST_TIMEOUT_MS (503); give them that long to finish on SIGTERM.
  enableGracefulShutdown(app, {
    drainTimeoutMs: Number(process.env.REQUEST_TIMEOUT_MS || 30000) + 1000,
  });
  await app.listen(Number(process.env.PORT || 3000));
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
