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
 * Sets up the OpenAPI document, generated from the registered controllers and
 * DTOs (paths relative to {api}) on the first request that needs it
 * (`{api}/doc`, the index, Swagger UI at `{base_url}/docs`) and kept.
 */
export function setupOpenApi(app: INestApplication, uiPath: string): void {
  const store = app.get(OpenApiDocumentStore);
  store.generateWith(() => generateOpenApi(app));
  SwaggerModule.setup(uiPath, app, () => store.get(), {
    useGlobalPrefix: false,
    jsonDocumentUrl: `${uiPath}/openapi.json`,
    swaggerOptions: { persistAuthorization: true },
  });
}

function generateOpenApi(app: INestApplication): OpenAPIObject {
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
  return document;
}
