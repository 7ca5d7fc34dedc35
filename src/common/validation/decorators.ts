import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsInt,
  IsNumber,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidationOptions,
} from 'class-validator';
import { isDateInput, parseZone } from '../time/dates';
import {
  MAX_ID,
  parseBoolean,
  parseDecimal,
  parseIdList,
  parseInteger,
  parseList,
} from './input-parsing';

/*
 * Transforms turn the loose input forms of the contract into typed values and
 * leave anything unreadable untouched, so the validator after them rejects it
 * with the parameter's name.
 */

export const ToBoolean = () => Transform(({ value }) => parseBoolean(value) ?? value);
export const ToInteger = () => Transform(({ value }) => parseInteger(value) ?? value);
export const ToDecimal = () => Transform(({ value }) => parseDecimal(value) ?? value);
export const ToIdList = () => Transform(({ value }) => parseIdList(value) ?? value);
/** A list of strings (slugs or IDs as text) from any list form. */
export const ToStringList = () =>
  Transform(({ value }) => parseList(value)?.map((v) => String(v)) ?? value);

export const MAX_LIST_ITEMS = 100;

/**
 * May be left out, but a `null` is checked like any other value (and so
 * rejected unless the field allows it), unlike class-validator's IsOptional.
 */
export const IsOmittable = () => ValidateIf((_object, value: unknown) => value !== undefined);

/** A positive ID (1 … 2^31−1). */
export function IsId(options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    IsInt(options)(target, key);
    Min(1, options)(target, key);
    Max(MAX_ID, options)(target, key);
  };
}

/** A parsed list of positive IDs, at most 100. */
export function IsIdList(options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    ValidateBy(
      {
        name: 'isIdList',
        validator: {
          validate: (value) =>
            Array.isArray(value) &&
            value.every((v) => Number.isInteger(v) && v >= 1 && v <= MAX_ID),
        },
      },
      options,
    )(target, key);
    ArrayMaxSize(MAX_LIST_ITEMS, options)(target, key);
  };
}

/** One of date input forms (docs/api.md §1). */
export function IsDateInput(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'isDateInput', validator: { validate: (v) => isDateInput(v) } },
    options,
  );
}

/** An IANA zone or UTC±H[:MM]. */
export function IsTimezone(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'isTimezone', validator: { validate: (v) => parseZone(v) !== undefined } },
    options,
  );
}

/** An absolute http(s) URL of at most 2,048 characters. */
export function IsHttpUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isUrl',
      validator: {
        validate: (v) => {
          if (typeof v !== 'string' || v.length > 2048) return false;
          try {
            const url = new URL(v);
            return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
          } catch {
            return false;
          }
        },
      },
    },
    options,
  );
}

/** Surrounding blanks removed, so a blank name is an empty one. */
export const ToTrimmed = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** A decimal, with `""` read as null (clears the value). */
export const ToNullableDecimal = () =>
  Transform(({ value }: { value: unknown }) =>
    value === '' ? null : (parseDecimal(value) ?? value),
  );

/** `""` skips the following checks: it clears an optional field. */
export const AllowEmptyString = () => ValidateIf((_object, value) => value !== '');

/** A string of at most `max` characters; the type is checked first (a number is "not a string"). */
export function IsText(max: number, options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    IsString(options)(target, key);
    MaxLength(max, options)(target, key);
    IsWellFormedText(options)(target, key);
  };
}

/**
 * Valid Unicode: no surrogate without its pair. UTF-8, and so the databases,
 * cannot hold a lone one (SQLite kept its three invalid bytes, read back as
 * three U+FFFD): refused rather than stored as something else.
 */
export function IsWellFormedText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWellFormedText',
      validator: { validate: (v) => typeof v !== 'string' || isWellFormedText(v) },
    },
    options,
  );
}

export function isWellFormedText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return false;
    i++;
  }
  return true;
}

/** A number within ±limit; the type is checked first, so `"north"` is reported as not a number. */
export function IsWithin(limit: number, options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    IsNumber({}, options)(target, key);
    Min(-limit, options)(target, key);
    Max(limit, options)(target, key);
  };
}
