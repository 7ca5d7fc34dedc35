import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsObject,
  IsOptional,
  ValidateBy,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { POST_STATUSES, PostStatus } from '../../auth/policy';
import {
  IsDateInput,
  IsId,
  IsOmittable,
  IsText,
  ToInteger,
} from '../../common/validation/decorators';
import { parseImageInput } from '../post-fields';
import { ExternalKeyDto } from './external-key.dto';
import { ApiExternalKeyProperty } from './schema-helpers';

/** Statuses a write may ask for; `trash` is set by DELETE only. */
export const WRITABLE_STATUSES = POST_STATUSES.filter((s) => s !== 'trash');

/** A date as text or unix seconds (docs/api.md §1). */
export const DATE_INPUT = { oneOf: [{ type: 'string' }, { type: 'integer' }] };

/** An http(s) URL or a positive media ID (docs/api.md §6); `""`, 0 or null clear it. */
export function IsImageInput(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'isImage', validator: { validate: (v) => parseImageInput(v) !== undefined } },
    options,
  );
}

/**
 * Writable fields every event, venue and organizer has besides its title
 * (docs/api.md §3, §6). Each may be left out (an update keeps it), but `null`
 * is checked like any value: only `image` accepts it (it clears the image).
 */
export class PostWriteDto {
  /** Author's user ID; only editors and administrators may name someone else. */
  @IsOmittable()
  @ToInteger()
  @IsId()
  author?: number;

  /** Publication date, read in SITE_TIMEZONE; default now. */
  @IsOmittable()
  @IsDateInput()
  @ApiProperty({ required: false, ...DATE_INPUT })
  date?: string | number;

  /** Publication date in UTC; wins over `date`. */
  @IsOmittable()
  @IsDateInput()
  @ApiProperty({ required: false, ...DATE_INPUT })
  date_utc?: string | number;

  /** Description (may hold HTML), in the request's language. */
  @IsOmittable()
  @IsText(100000)
  description?: string;

  /** URL slug in the request's language; generated from the title or name when left out. */
  @IsOmittable()
  @IsText(200)
  slug?: string;

  /** Short summary, in the request's language. */
  @IsOmittable()
  @IsText(1000)
  excerpt?: string;

  /** Status; a contributor's `publish` or `future` becomes `pending`. */
  @IsOmittable()
  @IsIn(WRITABLE_STATUSES)
  status?: PostStatus;

  /** Image: an absolute http(s) URL or a media ID; `""` or 0 removes it. */
  @IsOmittable()
  @IsImageInput()
  image?: string | number;

  /** The record's key in the system it comes from, unique per kind (docs/api.md §17); null removes it. */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ExternalKeyDto)
  @ApiExternalKeyProperty(false)
  external_id?: ExternalKeyDto | null;
}
