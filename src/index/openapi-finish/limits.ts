import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { MAX_ID } from '../../common/validation/input-parsing';
import type { Schema } from './headers';

/*
 * The bounds the validation pipe enforces, copied from the DTOs'
 * class-validator checks into their schemas and query parameters
 * (`maxLength`, `minimum`, `maximum`, `maxItems`, `pattern`), so a generated
 * client or a validating proxy rejects what the service rejects. One source:
 * the checks themselves, so the document cannot drift from them.
 */

/** A class (a DTO or a controller). */
export type DtoClass = abstract new (...args: never[]) => unknown;

/** What a property's checks allow, by the kind of value they apply to. */
interface Limits {
  string: Schema;
  number: Schema;
  array: Schema;
  /** Limits on the items of a list (`{ each: true }` checks, ID lists). */
  items: Schema;
}

/** An http(s) URL; schemes are case-insensitive and JSON Schema patterns have no flags. */
const HTTP_URL = '^[Hh][Tt][Tt][Pp][Ss]?://';
export const HTTPS_URL = '^[Hh][Tt][Tt][Pp][Ss]://';
const MAX_URL = 2048;

/** The class-validator checks of a DTO class, per property. */
export function limitsOf(dto: DtoClass): Map<string, Limits> {
  const storage = getMetadataStorage();
  const limits = new Map<string, Limits>();
  for (const metadata of storage.getTargetValidationMetadatas(dto, '', true, false)) {
    const names = constraintNames(metadata);
    const own = limits.get(metadata.propertyName) ?? {
      string: {},
      number: {},
      array: {},
      items: {},
    };
    limits.set(metadata.propertyName, own);
    for (const name of names) addLimit(own, name, metadata);
  }
  return limits;
}

function constraintNames(metadata: ValidationMetadata): string[] {
  if (!metadata.constraintCls) return [metadata.type];
  return getMetadataStorage()
    .getTargetValidatorConstraints(metadata.constraintCls)
    .map((c) => c.name ?? metadata.type);
}

function addLimit(limits: Limits, name: string, metadata: ValidationMetadata): void {
  const [value] = (metadata.constraints ?? []) as unknown[];
  const scalar = (kind: 'string' | 'number') => (metadata.each ? limits.items : limits[kind]);
  switch (name) {
    case 'maxLength':
      scalar('string').maxLength = value;
      break;
    case 'minLength':
      scalar('string').minLength = value;
      break;
    case 'min':
      scalar('number').minimum = value;
      break;
    case 'max':
      scalar('number').maximum = value;
      break;
    case 'isPositive':
      scalar('number').minimum = 1;
      break;
    case 'arrayMaxSize':
      limits.array.maxItems = value;
      break;
    case 'arrayMinSize':
      limits.array.minItems = value;
      break;
    case 'isIdList':
      Object.assign(limits.items, { minimum: 1, maximum: MAX_ID });
      break;
    case 'isUrl':
      Object.assign(scalar('string'), { maxLength: MAX_URL, pattern: HTTP_URL });
      break;
    case 'isTimezone':
      // parseZone reads names of at most 64 characters.
      scalar('string').maxLength ??= 64;
      break;
    case 'isEmail':
      scalar('string').maxLength ??= 254;
      break;
  }
}

/**
 * Applies a property's limits to its schema: to the schema itself, to each
 * branch of a `oneOf`, and to the items of a list, by the kind of value.
 * Limits the schema states already stay.
 */
export function applyLimits(schema: Schema, limits: Limits, inList = false): void {
  if (schema.$ref) return;
  for (const branch of (schema.oneOf ?? schema.anyOf ?? []) as Schema[])
    applyLimits(branch, limits, inList);
  const type = schema.type as string | undefined;
  if (type === 'array') {
    assignMissing(schema, limits.array);
    if (schema.items) applyLimits(schema.items as Schema, itemLimits(limits), true);
    return;
  }
  const own = inList ? limits.items : undefined;
  if (type === 'string') assignMissing(schema, { ...limits.string, ...own });
  if (type === 'integer' || type === 'number') assignMissing(schema, { ...limits.number, ...own });
}

/** Items of a list are checked by the `each` limits, else by the property's own. */
function itemLimits(limits: Limits): Limits {
  return {
    string: { ...limits.string, ...limits.items },
    number: { ...limits.number, ...limits.items },
    array: {},
    items: {},
  };
}

function assignMissing(schema: Schema, limits: Schema): void {
  for (const [key, value] of Object.entries(limits)) {
    if (value !== undefined && schema[key] === undefined && !(key === 'pattern' && schema.format))
      schema[key] = value;
  }
}

/**
 * Every DTO class with checks of its own, and `known` classes (which may
 * only inherit theirs, as `PartialType` copies do), by the name their schema
 * carries.
 */
export function checkedClasses(known: Iterable<DtoClass>): Map<string, DtoClass> {
  const byName = new Map<string, DtoClass>();
  const storage = getMetadataStorage() as unknown as {
    validationMetadatas: Map<DtoClass, ValidationMetadata[]>;
  };
  for (const target of [...storage.validationMetadatas.keys(), ...known]) {
    if (typeof target === 'function' && target.name) byName.set(target.name, target);
  }
  return byName;
}
