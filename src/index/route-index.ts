import type { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, any>;

export interface RouteArg {
  required: boolean;
  type: string;
  default?: unknown;
  enum?: unknown[];
  description?: string;
}

export interface RouteEndpoint {
  methods: string[];
  args: Record<string, RouteArg>;
}

export interface RouteEntry {
  namespace: string;
  methods: string[];
  endpoints: RouteEndpoint[];
  _links?: { self: Array<{ href: string }> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const LINKS = {
  type: 'array',
  items: {
    type: 'object',
    required: ['href'],
    additionalProperties: false,
    properties: { href: { type: 'string', format: 'uri' } },
  },
};

/** The answer of `GET {api}`, for the OpenAPI document. */
export const ROUTE_INDEX_SCHEMA = {
  type: 'object',
  required: ['namespace', 'routes', '_links'],
  additionalProperties: false,
  properties: {
    namespace: { type: 'string', example: 'calendar/events/v1' },
    routes: {
      type: 'object',
      description: 'Per route path (`/calendar/events/v1/events/{id}`), its methods and arguments.',
      additionalProperties: {
        type: 'object',
        required: ['namespace', 'methods', 'endpoints'],
        additionalProperties: false,
        properties: {
          namespace: { type: 'string' },
          methods: { type: 'array', items: { type: 'string' } },
          endpoints: {
            type: 'array',
            items: {
              type: 'object',
              required: ['methods', 'args'],
              additionalProperties: false,
              properties: {
                methods: { type: 'array', items: { type: 'string' } },
                args: {
                  type: 'object',
                  additionalProperties: {
                    type: 'object',
                    required: ['required', 'type'],
                    additionalProperties: false,
                    properties: {
                      required: { type: 'boolean' },
                      type: { type: 'string', example: 'integer' },
                      default: { description: 'Any JSON value' },
                      enum: { type: 'array', items: {} },
                      description: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
          _links: {
            type: 'object',
            required: ['self'],
            additionalProperties: false,
            properties: { self: LINKS },
          },
        },
      },
    },
    _links: {
      type: 'object',
      required: ['up'],
      additionalProperties: false,
      properties: { up: LINKS },
    },
  },
};

/** The answer of `GET {api}/doc`: an OpenAPI 3.0 document (its own schema is at spec.openapis.org). */
export const OPENAPI_DOCUMENT_SCHEMA = {
  type: 'object',
  required: ['openapi', 'info', 'paths', 'components', 'servers'],
  additionalProperties: false,
  properties: {
    openapi: { type: 'string', example: '3.0.0' },
    info: { type: 'object' },
    tags: { type: 'array', items: { type: 'object' } },
    servers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['url'],
        properties: { url: { type: 'string', format: 'uri' } },
      },
    },
    paths: { type: 'object' },
    components: { type: 'object' },
  },
};

/**
 * The namespace index (docs/api.md §9), derived from the generated OpenAPI
 * document so it lists exactly the routes and parameters that exist.
 */
export function buildRouteIndex(
  document: OpenAPIObject,
  namespace: string,
  apiUrl: string,
  restRootUrl: string,
) {
  const routes: Record<string, RouteEntry> = {};
  for (const [path, item] of Object.entries(document.paths)) {
    const relative = path === '/' ? '' : path;
    const endpoints: RouteEndpoint[] = [];
    for (const method of METHODS) {
      const operation = (item as Schema)[method];
      if (!operation) continue;
      const args = argsOf(operation, document);
      const same = endpoints.find((e) => JSON.stringify(e.args) === JSON.stringify(args));
      if (same) same.methods.push(method.toUpperCase());
      else endpoints.push({ methods: [method.toUpperCase()], args });
    }
    routes[`/${namespace}${relative}`] = {
      namespace,
      methods: endpoints.flatMap((e) => e.methods),
      endpoints,
      ...(relative.includes('{') ? {} : { _links: { self: [{ href: `${apiUrl}${relative}` }] } }),
    };
  }
  return { namespace, routes, _links: { up: [{ href: restRootUrl }] } };
}

function argsOf(operation: Schema, document: OpenAPIObject): Record<string, RouteArg> {
  const args: Record<string, RouteArg> = {};
  for (const parameter of (operation.parameters ?? []) as Schema[]) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    args[parameter.name] = describeArg(
      resolve(parameter.schema ?? {}, document),
      parameter.required === true,
      parameter.description,
    );
  }
  const body = operation.requestBody?.content?.['application/json']?.schema;
  if (body) {
    const schema = resolve(body, document);
    const required = new Set<string>(schema.required ?? []);
    for (const [name, property] of Object.entries(
      (schema.properties ?? {}) as Record<string, Schema>,
    )) {
      args[name] ??= describeArg(
        resolve(property, document),
        required.has(name),
        property.description,
      );
    }
  }
  return args;
}

function describeArg(schema: Schema, required: boolean, description?: string): RouteArg {
  const type = schema.type ?? (schema.oneOf || schema.anyOf ? 'mixed' : 'object');
  return {
    required,
    type: Array.isArray(type) ? type.join('|') : type,
    ...(schema.default !== undefined ? { default: schema.default } : {}),
    ...(schema.enum ? { enum: schema.enum } : {}),
    ...((description ?? schema.description)
      ? { description: description ?? schema.description }
      : {}),
  };
}

function resolve(schema: Schema, document: OpenAPIObject): Schema {
  const ref: unknown = schema.$ref ?? schema.allOf?.[0]?.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.split('/').pop() as string;
  return {
    ...((document.components?.schemas?.[name] as Schema) ?? {}),
    ...(schema.description ? { description: schema.description } : {}),
  };
}
