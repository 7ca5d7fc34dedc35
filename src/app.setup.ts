import { INestApplication, NestApplicationOptions, RequestMethod } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { bodyParserError } from './common/errors/api-exception.filter';
import { limitBodyDepth } from './common/http/body-depth.middleware';
import { requireSupportedContentType } from './common/http/content-type.middleware';
import { assignRequestId, REQUEST_LOGGER } from './common/http/logger-options';
import { assignApiUrl } from './common/http/request-context';
import { conditionalGet } from './common/http/conditional-get';
import { jsonBytesMiddleware } from './common/http/json-writer';
import { assignWritePrecondition } from './common/http/write-precondition';
import { StartupLogger } from './common/http/startup-logger';
import { LanguageMiddleware } from './i18n/language.middleware';
import { routeReads } from './database/read-routing';
import { Logger } from 'nestjs-pino';
import { appConfig, joinPath } from './config/app.config';
import { setupOpenApi } from './index/openapi';
import { MetricsService } from './metrics/metrics.service';

/** Options for NestFactory.create and Test.createNestApplication alike. */
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false, bufferLogs: true };

const BODY_LIMIT = '1mb';

/**
 * Everything main.ts does to the application besides listening, so e2e tests
 * run the very same setup: parsers, prefix, security headers, CORS, OpenAPI.
 */
export function configureApp(nest: INestApplication): NestExpressApplication {
  const app = nest as NestExpressApplication;
  const config = app.get<ConfigType<typeof appConfig>>(appConfig.KEY);
  app.useLogger(new StartupLogger(app.get(Logger)));
  app.use(assignRequestId);
  const metrics = app.get(MetricsService);
  if (metrics.enabled) {
    // GET /metrics is answered here, outside the API (no rate limit, no language, not timed).
    app.use(metrics.scrapeEndpoint);
    app.use(metrics.timeRequests);
  }
  // Each response's log line, rejected bodies (invalid JSON, 413, 415) included.
  app.use(app.get<RequestHandler>(REQUEST_LOGGER));

  // `a[]=1&a[]=2` lists need the extended parser (Express 5 defaults to "simple").
  app.set('query parser', 'extended');
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.disable('x-powered-by');
  // Express's weak ETag is replaced by conditionalGet's strong one (docs/api.md §11).
  app.set('etag', false);
  // Before the parsers: answers they reject (invalid JSON, 413, 415) carry these headers too.
  app.use(helmet({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false }));
  if (config.corsOrigins.length > 0) {
    app.enableCors({
      origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
      exposedHeaders: [
        'X-Total',
        'X-TotalPages',
        'Link',
        'X-Request-Id',
        'Retry-After',
        'Location',
        'ETag',
      ],
    });
  }

  app.use(requireSupportedContentType([joinPath(config.apiPath, 'imports')]));
  app.useBodyParser('json', { limit: BODY_LIMIT });
  app.useBodyParser('urlencoded', { limit: BODY_LIMIT, extended: true, parameterLimit: 1000 });
  // Nest would turn parser errors into a bare 400; keep their meaning (invalid JSON, 413).
  app.use((error: unknown, _req: Request, _res: Response, next: NextFunction) =>
    next(bodyParserError(error) ?? error),
  );
  app.use(limitBodyDepth);
  const language = app.get(LanguageMiddleware);
  app.use((req: Request, res: Response, next: NextFunction) => language.use(req, res, next));
  app.use(assignApiUrl(config.apiPath));
  app.use(conditionalGet);
  app.use(jsonBytesMiddleware);
  app.use(assignWritePrecondition(config.requireIfMatch));
  // Only replicas need it: its AsyncLocalStorage puts hooks on every promise on Node 20.
  if (config.databaseReadUrls.length > 0) app.use(routeReads);

  app.setGlobalPrefix(config.apiPath.slice(1), {
    exclude: [
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
    ],
  });
  setupOpenApi(app, joinPath(config.basePath, 'docs'));
  // Signals are handled in main.ts (enableGracefulShutdown): tests close the app themselves.
  return app;
}
