import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ImageDto } from '../common/dto/image.dto';
import { ErrorBodyDto } from '../common/errors/error-body.dto';
import { finishOpenApi } from './openapi-finish/finish-openapi';
import { argumentClasses, operationIdOf } from './openapi-finish/query-classes';
import type { ConfigType } from '@nestjs/config';
import { appConfig } from '../config/app.config';
import { OpenApiDocumentStore } from './openapi-document.store';

/**
 * Generates the OpenAPI document from the registered controllers and DTOs
 * (paths relative to {api}), keeps it for `{api}/doc` and the index, and
 * serves Swagger UI at `{base_url}/docs`.
 */
export function setupOpenApi(app: INestApplication, uiPath: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Calendar Events Service')
    .setVersion('1')
    .setDescription(
      'Events, venues, organizers, event categories and event tags under calendar/events/v1, in Dutch and English.',
    )
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    ignoreGlobalPrefix: true,
    extraModels: [ErrorBodyDto, ImageDto],
    operationIdFactory: operationIdOf,
  });
  finishOpenApi(document, {
    argumentClasses: argumentClasses(app),
    webhookHttpsOnly: !app.get<ConfigType<typeof appConfig>>(appConfig.KEY).webhooks.allowHttp,
  });
  app.get(OpenApiDocumentStore).set(document);
  SwaggerModule.setup(uiPath, app, document, {
    useGlobalPrefix: false,
    jsonDocumentUrl: `${uiPath}/openapi.json`,
    swaggerOptions: { persistAuthorization: true },
  });
  return document;
}
