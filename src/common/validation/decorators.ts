import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsInt,
  Max,
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

/** One of the contract's date input forms (§1). */
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
