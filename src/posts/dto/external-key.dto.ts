import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength, ValidateBy, ValidationOptions } from 'class-validator';
import { IsText } from '../../common/validation/decorators';

/** Longest source name and source ID (docs/api.md §17). */
export const MAX_EXTERNAL_SOURCE = 64;
export const MAX_EXTERNAL_ID = 255;

/** A source name: lower-case letters, digits, `.`, `_` and `-` (no backtracking: one class). */
export const EXTERNAL_SOURCE_PATTERN = /^[a-z0-9._-]+$/;
/** A source ID: at least one character, none of them a control character (C0, DEL, C1). */
// eslint-disable-next-line no-control-regex
export const EXTERNAL_ID_PATTERN = /^[^\u0000-\u001f\u007f-\u009f]+$/;

/**
 * A source ID has no space at its end: MariaDB's utf8mb4_bin is PAD SPACE and
 * would find the key `a` for `a ` (SQLite would not), so both engines refuse it.
 */
function isExternalIdText(value: string): boolean {
  return EXTERNAL_ID_PATTERN.test(value) && !value.endsWith(' ');
}

export function isExternalSource(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= MAX_EXTERNAL_SOURCE &&
    EXTERNAL_SOURCE_PATTERN.test(value)
  );
}

export function isExternalId(value: unknown): value is string {
  return (
    typeof value === 'string' && [...value].length <= MAX_EXTERNAL_ID && isExternalIdText(value)
  );
}

export function IsExternalSource(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isExternalSource',
      validator: { validate: (v) => typeof v !== 'string' || EXTERNAL_SOURCE_PATTERN.test(v) },
    },
    options,
  );
}

function IsExternalId(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isExternalId',
      validator: { validate: (v) => typeof v !== 'string' || isExternalIdText(v) },
    },
    options,
  );
}

/** The key of a record in the system it comes from (docs/api.md §17). */
export class ExternalKeyDto {
  /** The source's name: 1–64 characters of `a-z`, `0-9`, `.`, `_`, `-`. */
  @IsDefined()
  @IsString()
  @MaxLength(MAX_EXTERNAL_SOURCE)
  @IsExternalSource()
  @ApiProperty({ pattern: EXTERNAL_SOURCE_PATTERN.source, maxLength: MAX_EXTERNAL_SOURCE })
  source: string;

  /** The record's ID in that source: 1–255 characters, no control characters, no space at the end. */
  @IsDefined()
  @IsText(MAX_EXTERNAL_ID)
  @IsExternalId()
  @ApiProperty({ minLength: 1, maxLength: MAX_EXTERNAL_ID })
  id: string;
}
