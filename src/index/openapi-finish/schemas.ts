import { MAX_ID } from '../../common/validation/input-parsing';
import {
  EXTERNAL_SOURCE_PATTERN,
  MAX_EXTERNAL_ID,
  MAX_EXTERNAL_SOURCE,
} from '../../posts/dto/external-key.dto';
import type { Schema } from './headers';

/* Component schemas: input shapes, wire dates, closed records, integers. */

/** Numbers that may have a fraction; every other `number` of the document is an integer. */
const DECIMALS = new Set([
  'geo_lat',
  'geo_lng',
  'geoloc_lat',
  'geoloc_lng',
  'geoloc_radius',
  'values',
]);

/** Record fields in the wire date format. */
const WIRE_DATES = new Set([
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'start_date',
  'end_date',
  'utc_start_date',
  'utc_end_date',
]);
const WIRE_DATE = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
  example: '2030-06-01 20:00:00',
};

/** A date as accepted on input (docs/api.md, "General"). */
const DATE_INPUT = {
  oneOf: [
    {
      type: 'string',
      description:
        '`YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD` (midnight), ISO 8601 with or without offset, or unix seconds as digits',
      example: '2030-06-01 20:00:00',
    },
    { type: 'integer', description: 'Unix seconds', example: 1906574400 },
  ],
};

/** An image as accepted on input: a URL, a media ID, or a value that clears it. */
const IMAGE_INPUT = {
  description: 'An http(s) URL or a positive media ID; `""`, `0`, `false` or `null` clear it.',
  oneOf: [
    {
      type: 'string',
      nullable: true,
      description: 'http(s) URL; "" or null clear it',
      example: 'https://example.org/poster.jpg',
    },
    { type: 'integer', minimum: 0, description: 'Media ID, or 0 to clear', example: 12 },
    { type: 'boolean', enum: [false], description: 'Clears the image' },
  ],
};

/** `external_id` of records and writes (docs/api.md §17): the key, or null. */
const EXTERNAL_KEY = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  required: ['source', 'id'],
  properties: {
    source: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_EXTERNAL_SOURCE,
      pattern: EXTERNAL_SOURCE_PATTERN.source,
      description: 'The source’s name: `a-z`, `0-9`, `.`, `_`, `-`.',
      example: 'ticketing',
    },
    id: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_EXTERNAL_ID,
      description: 'The record’s ID in that source; no control characters.',
      example: 'evt-2030-0042',
    },
  },
};

/** Record schemas whose every field is listed: a response with another field is a defect. */
const CLOSED_SCHEMAS = [
  'TermUrlsDto',
  'TermRecordDto',
  'VenueRecordDto',
  'OrganizerRecordDto',
  'EventRecordDto',
  'DateDetailsDto',
  'CostDetailsDto',
  'ImageDto',
  'ErrorBodyDto',
  'ErrorDataDto',
  'ImportRecordDto',
  'ImportWithRunsDto',
  'ImportRunDto',
  'SkippedVeventDto',
];

export function fixSchemas(schemas: Record<string, Schema>): void {
  for (const [name, schema] of Object.entries(schemas)) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const isInput = /^(Create|Update)/.test(name);
    for (const [field, property] of Object.entries(properties)) {
      if (isInput && field === 'image') properties[field] = { ...IMAGE_INPUT };
      if (isInput && (field === 'date' || field === 'date_utc') && property.type === 'object')
        properties[field] = { ...DATE_INPUT };
      if (isInput && property.oneOf && WIRE_DATES.has(field))
        properties[field] = { ...DATE_INPUT, description: property.description };
      if (!isInput && WIRE_DATES.has(field) && property.type === 'string')
        properties[field] = { ...property, ...WIRE_DATE };
      if (field === 'external_id')
        properties[field] = { ...EXTERNAL_KEY, description: property.description };
      if (!isInput && (field === 'url' || field === 'rest_url'))
        properties[field] = { ...property, format: 'uri' };
    }
  }
  // Inline venues and organizers of an event write: `{id}` or the fields of a new one.
  for (const [name, kind] of [
    ['venue', 'CreateVenueDto'],
    ['organizer', 'CreateOrganizerDto'],
  ] as const) {
    for (const input of ['CreateEventDto', 'UpdateEventDto']) {
      const property = schemas[input]?.properties?.[name] as Schema | undefined;
      if (property) walk(property, (node) => inlineObject(node, kind));
    }
  }
  // An empty currency_position (no cost) is no enum member: a pattern keeps generated enums valid.
  const position = schemas.CostDetailsDto?.properties?.currency_position as Schema | undefined;
  if (position) {
    delete position.enum;
    Object.assign(position, {
      type: 'string',
      pattern: '^(prefix|postfix)?$',
      description: '`prefix` or `postfix`; `""` when the cost has no currency.',
      example: 'prefix',
    });
  }
  const data = schemas.ErrorDataDto;
  if (data?.properties) {
    data.properties.status = {
      type: 'integer',
      description: 'The HTTP status, equal to the response status.',
    };
    data.properties.params = {
      description:
        '`rest_missing_callback_param`: the missing names; `rest_invalid_param`: name → reason.',
      oneOf: [
        { type: 'array', items: { type: 'string' } },
        { type: 'object', additionalProperties: { type: 'string' } },
      ],
    };
  }
  for (const name of CLOSED_SCHEMAS) {
    if (schemas[name]) schemas[name].additionalProperties = false;
  }
}

/** An untyped object branch of an event's venue/organizer input: `{id}` or a new record. */
function inlineObject(node: Schema, kind: string): void {
  const branches = node.oneOf as Schema[] | undefined;
  if (!branches) return;
  node.oneOf = branches.flatMap((branch) =>
    branch.type === 'object' && !branch.properties && !branch.$ref
      ? [
          {
            type: 'object',
            required: ['id'],
            properties: { id: { type: 'integer', minimum: 1, maximum: MAX_ID } },
            description: 'An existing record by ID',
          },
          { $ref: `#/components/schemas/${kind}` },
        ]
      : [branch],
  );
}

/** `number` → `integer` everywhere but for the known decimals. */
export function fixNumbers(schema: Schema, key: string | undefined): void {
  if (schema.type === 'number' && !(key && DECIMALS.has(key))) schema.type = 'integer';
}

/** Calls `visit` on every object of the document with the property name it sits under. */
export function walk(
  node: unknown,
  visit: (schema: Schema, key: string | undefined) => void,
  key?: string,
): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit, key);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Schema;
  // A parameter's schema sits under its name.
  const name = typeof schema.name === 'string' && schema.in ? schema.name : undefined;
  visit(schema, key);
  for (const [child, value] of Object.entries(schema)) {
    const under =
      child === 'items' || child === 'schema' || child === 'oneOf' ? (name ?? key) : child;
    walk(value, visit, child === 'properties' ? undefined : under);
  }
}
