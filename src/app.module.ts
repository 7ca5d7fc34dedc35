import { Module } from '@nestjs/common';
import { ConfigModule, ConfigType } from '@nestjs/config';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ThrottlerGuard } from '@nestjs/throttler';
import { LoggerModule } from 'nestjs-pino';
import { AuthGuard } from './auth/auth.guard';
import { AuthModule } from './auth/auth.module';
import { ApiExceptionFilter } from './common/errors/api-exception.filter';
import { ApiValidationPipe } from './common/validation/api-validation.pipe';
import { RateLimitModule } from './common/limits/rate-limit.module';
import { RequestTimeoutInterceptor } from './common/limits/request-timeout.interceptor';
import { CacheModule } from './common/cache/cache.module';
import { RecordsModule } from './common/records/records.module';
import { WriteVersionInterceptor } from './common/cache/write-version.interceptor';
import { ReadValidatorInterceptor } from './common/http/read-validator.interceptor';
import { appConfig } from './config/app.config';
import { validateEnvironment } from './config/env.validation';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { I18nModule } from './i18n/i18n.module';
import { IndexModule } from './index/index.module';
import { nestLoggerParams, REQUEST_LOGGER, requestLogger } from './common/http/logger-options';
import { CategoriesModule } from './categories/categories.module';
import { TagsModule } from './tags/tags.module';
import { VenuesModule } from './venues/venues.module';
import { OrganizersModule } from './organizers/organizers.module';
import { EventsModule } from './events/events.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { ImportsModule } from './imports/imports.module';
import { IcalModule } from './ical/ical.module';
import { ChangesModule } from './changes/changes.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { ImportWriterModule } from './imports/import-writer.module';
import { MetricsModule } from './metrics/metrics.module';
import { BatchModule } from './batch/batch.module';
import { AppInterceptors } from './app-interceptors';

@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      cache: true,
      load: [appConfig],
      validate: validateEnvironment,
    }),
    LoggerModule.forRootAsync({
      providers: [
        {
          provide: REQUEST_LOGGER,
          inject: [appConfig.KEY],
          useFactory: (config: ConfigType<typeof appConfig>) => requestLogger(config.logLevel),
        },
      ],
      inject: [REQUEST_LOGGER],
      useFactory: nestLoggerParams,
    }),
    RateLimitModule,
    DatabaseModule,
    MetricsModule,
    CacheModule,
    RecordsModule,
    I18nModule,
    AuthModule,
    HealthModule,
    IndexModule,
    // Before EventsModule: its routes are registered first, so /events/{id}.ics is not /events/{id}.
    IcalModule,
    // Before the other resources: Express tries routes in registration order, and most requests are events'.
    EventsModule,
    CategoriesModule,
    TagsModule,
    VenuesModule,
    OrganizersModule,
    WebhooksModule,
    ImportsModule,
    ChangesModule,
    IdempotencyModule,
    // The imports resource imports it too; here so the writer runs without routes (tests, benches).
    ImportWriterModule,
    BatchModule,
  ],
  // Every global enhancer, in the order it runs (docs/architecture.md). Registered here, not in
  // main.ts, so e2e tests that import AppModule behave like production.
  providers: [
    // Guards: the rate limit (429) first, then the bearer token (401; anonymous passes).
    { provide: APP_GUARD, useClass: ThrottlerGuard },
    { provide: APP_GUARD, useClass: AuthGuard },
    // Pipe: validates and transforms every DTO (400 with the parameters' names).
    { provide: APP_PIPE, useClass: ApiValidationPipe },
    // Filter: anything thrown becomes the contract's error body in the request's language.
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
    // Interceptors: the four global ones as one layer, in the order AppInterceptors gives
    // (time-out, remembered ETags, Idempotency-Key, data version bump). A write's ETag header is
    // set by its controller (sendTagged). GET ETags and 304s: conditionalGet in app.setup.ts.
    // List headers and links (ListPageInterceptor) are bound by @ApiListResponse on the list
    // routes only: each interceptor Nest runs is a layer every request of its routes passes.
    RequestTimeoutInterceptor,
    ReadValidatorInterceptor,
    WriteVersionInterceptor,
    { provide: APP_INTERCEPTOR, useClass: AppInterceptors },
  ],
})
export class AppModule {}
