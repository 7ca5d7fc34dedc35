import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Holds the generated OpenAPI document for the doc and index routes. */
@Injectable()
export class OpenApiDocumentStore {
  private document?: OpenAPIObject;

  set(document: OpenAPIObject): void {
    this.document = document;
  }

  get(): OpenAPIObject {
    if (!this.document) throw new Error('OpenAPI document not generated (configureApp not called)');
    return this.document;
  }
}
