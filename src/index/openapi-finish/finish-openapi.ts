import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_STATUSES, errorResponse } from './errors';
import { headErrorResponses, headOf } from './head';
import { HEADERS, type Schema } from './headers';
import { applyLimits, checkedClasses, type DtoClass, HTTPS_URL, limitsOf } from './limits';
import { fixOperation } from './operations';
import { fixNumbers, fixSchemas, walk } from './schemas';

/*
 * The last pass over the generated OpenAPI document, so it says exactly what
 * the service does (docs/api.md): per-operation security, every error status
 * with the error body, response headers, integers, dates, input shapes, and
 * closed record schemas. Rules that hold for every route live here once,
 * instead of on each of ~50 handlers.
 */

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface FinishOptions {
  /** The argument classes (query and body DTOs) of each operation, by operation ID. */
  argumentClasses: ReadonlyMap<string, DtoClass[]>;
  /** Webhook URLs must be https:// (WEBHOOK_ALLOW_HTTP is off). */
  webhookHttpsOnly: boolean;
}

export function finishOpenApi(document: OpenAPIObject, options: FinishOptions): void {
  const components = (document.components ??= {}) as Schema;
  components.headers = { ...(components.headers ?? {}), ...HEADERS };
  components.responses = { ...(components.responses ?? {}) };
  for (const status of ERROR_STATUSES) {
    components.responses[`Error${status}`] = errorResponse(status);
  }
  const schemas = components.schemas as Record<string, Schema>;
  limitSchemas(schemas, options);
  fixSchemas(schemas);

  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Schema)[method] as Schema | undefined;
      if (!operation) continue;
      limitQuery(operation, options.argumentClasses.get(operation.operationId as string) ?? []);
      fixOperation(path, method, operation);
    }
    const get = (item as Schema).get as Schema | undefined;
    if (get) (item as Schema).head = headOf(get);
  }
  Object.assign(components.responses, headErrorResponses(components.responses as Schema));
  document.paths = withSuffixedTemplatesLast(document.paths);
  walk(document, fixNumbers);
}

/** The checks of each DTO with a schema, as schema limits. */
function limitSchemas(schemas: Record<string, Schema>, options: FinishOptions): void {
  const classes = checkedClasses([...options.argumentClasses.values()].flat());
  for (const [name, schema] of Object.entries(schemas)) {
    const dto = classes.get(name);
    if (!dto) continue;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const [property, limits] of limitsOf(dto)) {
      if (properties[property]) applyLimits(properties[property], limits);
    }
  }
  if (options.webhookHttpsOnly) {
    for (const name of ['CreateWebhookDto', 'UpdateWebhookDto']) {
      const url = schemas[name]?.properties?.url as Schema | undefined;
      if (url) url.pattern = HTTPS_URL;
    }
  }
}

/** The checks of an operation's query DTO, as limits of its query parameters. */
function limitQuery(operation: Schema, classes: DtoClass[]): void {
  const limits = classes.map(limitsOf);
  for (const parameter of (operation.parameters ?? []) as Schema[]) {
    if (parameter.in !== 'query' || !parameter.schema) continue;
    const own = limits.find((l) => l.has(parameter.name as string))?.get(parameter.name as string);
    if (own) applyLimits(parameter.schema as Schema, own);
  }
}

/** A last segment with a parameter and literal text (`{id}.ics`). */
const SUFFIXED_TEMPLATE = /\{[^}/]+\}[^/{}]+$/;

/**
 * `/events/{id}.ics` after `/events/{id}`: path matchers that treat any
 * segment with a parameter as a match (Prism) score both templates alike for
 * `/events/1.ics` and take the one declared last, so the template with the
 * literal suffix must come last to win; `/events/1` matches only the other.
 */
function withSuffixedTemplatesLast(paths: OpenAPIObject['paths']): OpenAPIObject['paths'] {
  const entries = Object.entries(paths);
  const suffixed = (path: string) => (SUFFIXED_TEMPLATE.test(path) ? 1 : 0);
  return Object.fromEntries(entries.sort(([a], [b]) => suffixed(a) - suffixed(b)));
}
