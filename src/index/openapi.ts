import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, getSchemaPath, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ImageDto } from '../common/dto/image.dto';
import { ErrorBodyDto } from '../common/errors/error-body.dto';
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
    operationIdFactory: (controllerKey, methodKey) =>
      `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
  addErrorResponses(document);
  app.get(OpenApiDocumentStore).set(document);
  SwaggerModule.setup(uiPath, app, document, {
    useGlobalPrefix: false,
    jsonDocumentUrl: `${uiPath}/openapi.json`,
    swaggerOptions: { persistAuthorization: true },
  });
  return document;
}

/** Every operation can answer the contract's error body (§8). */
function addErrorResponses(document: OpenAPIObject): void {
  const error = {
    description:
      'Error: `{code, message, data: {status, params?}}` with the HTTP status in data.status.',
    content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorBodyDto) } } },
  };
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (operation) operation.responses = { ...operation.responses, default: error };
    }
  }
}
