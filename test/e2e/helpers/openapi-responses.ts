import type { INestApplication } from '@nestjs/common';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { NextFunction, Request, Response } from 'express';
import { appConfig } from '../../../src/config/app.config';
import { OpenApiDocumentStore } from '../../../src/index/openapi-document.store';

/*
 * Every response of the e2e suites is checked against the live OpenAPI
 * document ({api}/doc): its status is declared for the operation, its body
 * matches the declared schema (no undeclared fields where a record is
 * closed), and every header declared as required is present. A violation
 * fails the running test (test/e2e/setup/openapi-responses.ts), so a route,
 * status, field or header that is not documented cannot land.
 */

type Schema = Record<string, any>;

interface Captured {
  method: string;
  url: string;
  status: number;
  headers: Record<string, unknown>;
  body: Buffer;
}

interface Route {
  path: string;
  pattern: RegExp;
  item: Schema;
}

const VIOLATIONS_KEY = Symbol.for('calendar.openapiViolations');

/** Violations recorded since the last call (the setup file fails the test with them). */
export function takeViolations(): string[] {
  const store = globalThis as unknown as Record<symbol, string[] | undefined>;
  const list = store[VIOLATIONS_KEY] ?? [];
  store[VIOLATIONS_KEY] = [];
  return list;
}

function record(violation: string): void {
  const store = globalThis as unknown as Record<symbol, string[] | undefined>;
  (store[VIOLATIONS_KEY] ??= []).push(violation);
}

/** Registers the capture as the application's first middleware (call before configureApp). */
export function validateResponses(app: INestApplication): void {
  let validator: ResponseValidator | undefined;
  const check = (response: Captured) => {
    validator ??= new ResponseValidator(
      app.get(OpenApiDocumentStore).get(),
      app.get<{ apiPath: string }>(appConfig.KEY).apiPath,
    );
    for (const violation of validator.check(response)) record(violation);
  };
  app.use((req: Request, res: Response, next: NextFunction) => {
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding: unknown) => {
      if (typeof chunk === 'string')
        chunks.push(
          Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
        );
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as Response['write'];
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') keep(chunk, rest[0]);
      return end(chunk, ...rest);
    }) as Response['end'];
    res.on('finish', () =>
      check({
        method: req.method,
        url: req.originalUrl,
        status: res.statusCode,
        headers: res.getHeaders(),
        body: Buffer.concat(chunks),
      }),
    );
    next();
  });
}

export class ResponseValidator {
  private readonly ajv: Ajv;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    private readonly document: Schema,
    private readonly apiPath: string,
  ) {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components ?? {} });
    this.routes = Object.entries(document.paths as Record<string, Schema>)
      // Literal segments before parameters, as the router matches them; among templates with as
      // many parameters the one with more literal text (`/events/{id}.ics`) first.
      .sort(
        ([a], [b]) =>
          a.split('{').length - b.split('{').length || literalLength(b) - literalLength(a),
      )
      .map(([path, item]) => ({
        path,
        item,
        pattern: new RegExp(
          `^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
        ),
      }));
  }

  /** What is wrong with one response; empty when it is as documented. */
  check(response: Captured): string[] {
    const [rawPath] = response.url.split('?');
    const apiRoot = this.apiPath === '/' ? '' : this.apiPath;
    // Health probes and Swagger UI live outside the API and outside its document.
    if (rawPath !== apiRoot && !rawPath.startsWith(`${apiRoot}/`)) return [];
    if (response.method === 'OPTIONS') return [];
    const relative = rawPath.slice(apiRoot.length) || '/';
    const method = response.method.toLowerCase();
    const route = this.routes.find((r) => r.pattern.test(relative));
    const operation = route?.item[method] as Schema | undefined;
    const where = `${response.method} ${response.url} → ${response.status}`;
    if (!route || !operation) {
      // No documented operation: only the error of a path or method that does not exist may answer.
      if (response.status !== 404)
        return [`${where}: no operation in /doc for ${response.method} ${relative}`];
      return this.checkBody(
        `${where} (no route)`,
        { $ref: '#/components/schemas/ErrorBodyDto' },
        response,
      );
    }
    const name = `${method.toUpperCase()} ${route.path}`;
    const declared = this.resolve(operation.responses?.[String(response.status)]);
    if (!declared) {
      const known = Object.keys(operation.responses ?? {}).join(', ');
      return [
        `${where}: status ${response.status} is not declared for ${name} (declared: ${known})`,
      ];
    }
    const problems: string[] = [];
    for (const [header, spec] of Object.entries(
      (declared.headers ?? {}) as Record<string, Schema>,
    )) {
      const resolved = this.resolve(spec);
      if (resolved?.required && response.headers[header.toLowerCase()] === undefined)
        problems.push(
          `${where}: ${name} ${response.status} declares header ${header}, which is missing`,
        );
    }
    const content = (declared.content ?? {}) as Record<string, Schema>;
    const schema = content['application/json']?.schema as Schema | undefined;
    if (response.method === 'HEAD') return problems;
    const type = String(response.headers['content-type'] ?? '').split(';')[0];
    if (!schema && Object.keys(content).length > 0) {
      // Another declared media type (text/calendar): the type must be one of those declared.
      if (response.body.length > 0 && !(type in content))
        problems.push(
          `${where}: ${name} ${response.status} declares ${Object.keys(content).join(', ')}, got "${type}"`,
        );
      return problems;
    }
    if (!schema) {
      if (response.body.length > 0)
        problems.push(`${where}: ${name} ${response.status} declares no body, but one was sent`);
      return problems;
    }
    return [
      ...problems,
      ...this.checkBody(`${where}: ${name} ${response.status}`, schema, response),
    ];
  }

  private checkBody(where: string, schema: Schema, response: Captured): string[] {
    const type = String(response.headers['content-type'] ?? '');
    if (!type.startsWith('application/json'))
      return [`${where}: declares application/json, got Content-Type "${type}"`];
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      return [`${where}: body is not JSON`];
    }
    const validate = this.validatorFor(schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `${where}: body${describe(error)}`);
  }

  private validatorFor(schema: Schema): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(retarget(schema));
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Follows a `#/components/...` reference of the document. */
  private resolve(node: Schema | undefined): Schema | undefined {
    let current = node;
    while (current?.$ref) {
      const path = String(current.$ref).replace(/^#\//, '').split('/');
      current = path.reduce<Schema | undefined>((at, part) => at?.[part], this.document);
    }
    return current;
  }
}

/** Points the document's local references at the schema registered as `openapi.json`. */
function retarget(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(retarget);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `openapi.json${value}`
        : retarget(value),
    ]),
  );
}

function describe(error: ErrorObject): string {
  const at = error.instancePath || '';
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (undeclared field "${(error.params as { additionalProperty: string }).additionalProperty}")`
      : error.keyword === 'enum'
        ? ` (allowed: ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)})`
        : '';
  return `${at} ${error.message ?? error.keyword}${extra}`;
}

/** The characters of a path template outside its parameters. */
function literalLength(path: string): number {
  return path.replace(/\{[^}]+\}/g, '').length;
}
