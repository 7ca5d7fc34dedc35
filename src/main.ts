import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { APP_OPTIONS, configureApp } from './app.setup';
import { ConfigurationError, validateEnvironment } from './config/env.validation';

async function bootstrap(): Promise<void> {
  // Validate before anything else is loaded, so a bad value gives one clear line.
  validateEnvironment(process.env);
  const { AppModule } = await import('./app.module');
  const app = configureApp(await NestFactory.create(AppModule, APP_OPTIONS));
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
