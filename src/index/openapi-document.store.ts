import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * Holds the OpenAPI document for the doc and index routes. It is generated
 * when first asked for, not at start-up: the generation's working set was
 * 8–9 MB of the idle service's resident memory (docs/performance.md, Memory),
 * and most instances never serve `/doc`.
 */
@Injectable()
export class OpenApiDocumentStore {
  private build?: () => OpenAPIObject;
  private document?: OpenAPIObject;

  /** How to generate the document (configureApp); nothing is generated yet. */
  generateWith(build: () => OpenAPIObject): void {
    this.build = build;
    this.document = undefined;
  }

  get(): OpenAPIObject {
    if (this.document) return this.document;
    if (!this.build) throw new Error('OpenAPI document not set up (configureApp not called)');
    this.document = this.build();
    return this.document;
  }
}
