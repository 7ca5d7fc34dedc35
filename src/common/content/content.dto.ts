import { IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsBoolean,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidationOptions,
} from 'class-validator';
import { POST_STATUSES, PostStatus } from '../../auth/policy';
import { LanguageQueryDto, ViewQueryDto } from '../dto/language-query.dto';
import { PageQueryDto } from '../pagination/page-query.dto';
import {
  IsDateInput,
  IsHttpUrl,
  IsId,
  IsOmittable,
  MAX_LIST_ITEMS,
  ToBoolean,
  ToInteger,
  ToStringList,
} from '../validation/decorators';
import { parseDecimal } from '../validation/input-parsing';
import { parseImageInput } from './record-fields';

/** Statuses a write may ask for; `trash` is set by DELETE only. */
export const WRITABLE_STATUSES = POST_STATUSES.filter((s) => s !== 'trash');

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
  };
}

/** A number within ±limit; the type is checked first, so `"north"` is reported as not a number. */
export function IsWithin(limit: number, options?: ValidationOptions): PropertyDecorator {
  return (target, key) => {
    IsNumber({}, options)(target, key);
    Min(-limit, options)(target, key);
    Max(limit, options)(target, key);
  };
}

/** An http(s) URL or a positive media ID (contract §6); `""`, 0 or null clear it. */
export function IsImageInput(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'isImage', validator: { validate: (v) => parseImageInput(v) !== undefined } },
    options,
  );
}

/** Writable fields venues and organizers share, besides the name (contract §6). */
export class ContentWriteDto {
  /** Description (may hold HTML), in the request's language. */
  @IsOptional()
  @IsText(100000)
  description?: string;

  /** Short summary, in the request's language. */
  @IsOptional()
  @IsText(1000)
  excerpt?: string;

  /** URL slug in the request's language; generated from the name when left out. */
  @IsOptional()
  @IsText(200)
  slug?: string;

  /** Contact telephone number. */
  @IsOptional()
  @IsText(255)
  phone?: string;

  /** Website: an http(s) URL, or `""` to remove it. */
  @IsOptional()
  @AllowEmptyString()
  @IsHttpUrl()
  website?: string;

  /** Image: an absolute http(s) URL or a media ID; `""` or 0 removes it. */
  @IsOptional()
  @IsImageInput()
  image?: string | number;

  /** Status; a contributor's `publish` or `future` becomes `pending`. */
  @IsOmittable()
  @IsIn(WRITABLE_STATUSES)
  status?: PostStatus;

  /** Author's user ID; only editors and administrators may name someone else. */
  @IsOmittable()
  @ToInteger()
  @IsId()
  author?: number;

  /** Publication date, read in SITE_TIMEZONE; default now. */
  @IsOmittable()
  @IsDateInput()
  date?: string | number;

  /** Publication date in UTC; wins over `date`. */
  @IsOmittable()
  @IsDateInput()
  date_utc?: string | number;
}

/** List parameters of venues and organizers (contract §5, §5.2). */
export class ContentListQueryDto extends IntersectionType(PageQueryDto, ViewQueryDto) {
  /** Words that must all occur in one of the record's searchable fields. */
  @IsOptional()
  @IsText(200)
  search?: string;

  /** One status, an array or a comma list; only `publish` for anonymous callers. */
  @IsOptional()
  @ToStringList()
  @IsIn(POST_STATUSES, { each: true })
  @ArrayMaxSize(MAX_LIST_ITEMS)
  status?: PostStatus[];

  /** Only the records linked to this event. */
  @IsOptional()
  @ToInteger()
  @IsId()
  event?: number;

  /** `true`: linked to an event that is not a draft, pending or trashed; `false`: the others. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  has_events?: boolean;

  /** `true`: linked to an event the caller may see that starts now or later. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  only_with_upcoming?: boolean;
}

/** DELETE parameters. */
export class DeleteQueryDto extends LanguageQueryDto {
  /** Delete for good instead of trashing (editors and administrators). */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  force?: boolean = false;
}
