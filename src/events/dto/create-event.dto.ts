import { ApiProperty } from '@nestjs/swagger';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsInt,
  IsNotEmpty,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidationOptions,
} from 'class-validator';
import {
  AllowEmptyString,
  IsDateInput,
  IsHttpUrl,
  IsOmittable,
  IsText,
  IsTimezone,
  MAX_LIST_ITEMS,
  ToBoolean,
  ToInteger,
  ToTrimmed,
} from '../../common/validation/decorators';
import { MAX_ID } from '../../common/validation/input-parsing';
import { DATE_INPUT, PostWriteDto } from '../../posts/dto/post-write.dto';
import { costStrings } from '../cost';

/** At most this many `recurrence` lines (contract §16). */
const MAX_RECURRENCE_LINES = 20;
/** Characters per line: room for an EXDATE list of about 120 dates (deleted occurrences add to it). */
export const MAX_RECURRENCE_LINE = 2000;

/** A cost: a string or number, or an array of them, each with an amount or the word for free. */
function IsCostInput(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'isCost', validator: { validate: (v) => costStrings(v) !== undefined } },
    options,
  );
}

/** A linked record's ID as input: 0 unlinks; one beyond MAX_ID names nothing (400). */
const LINK_ID = { type: 'integer', minimum: 0, maximum: MAX_ID };
const LIST_ID = { type: 'integer', minimum: 1, maximum: MAX_ID };

// Texts may hold comma lists of names with blanks around them: only the item count is bounded.
const ID_OR_NAME_LIST = {
  oneOf: [
    {
      type: 'array',
      maxItems: MAX_LIST_ITEMS,
      items: { oneOf: [LIST_ID, { type: 'string' }] },
    },
    { type: 'string' },
    LINK_ID,
  ],
};

/** Writable fields of an event (docs/api.md §6): the post fields, the title and the event's own. */
export class CreateEventDto extends PostWriteDto {
  /** The event's title, in the request's language. */
  @IsDefined()
  @ToTrimmed()
  @IsNotEmpty()
  @IsText(200)
  title: string;

  /** IANA time zone or `UTC±H[:MM]`; default SITE_TIMEZONE. A new zone re-interprets the times. */
  @IsOmittable()
  @IsTimezone()
  timezone?: string;

  /** Whole days: the start becomes 00:00:00 and the end 23:59:59 of their days. */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  all_day?: boolean;

  /** Start, wall-clock time in the event's time zone. */
  @IsDefined()
  @IsDateInput()
  @ApiProperty({ required: true, ...DATE_INPUT })
  start_date: string | number;

  /** End, wall-clock time in the event's time zone; not before the start. */
  @IsDefined()
  @IsDateInput()
  @ApiProperty({ required: true, ...DATE_INPUT })
  end_date: string | number;

  /** Cost: a string such as `"€10"`, `"10 - 20"` or `"5,50"`, or an array of them; `""` clears it. */
  @IsOmittable()
  @ApiProperty({
    required: false,
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  })
  @IsCostInput()
  cost?: string | number | Array<string | number> | null;

  /** The event's own website: an http(s) URL, or `""` for none (the permalink is shown). */
  @IsOmittable()
  @AllowEmptyString()
  @IsHttpUrl()
  website?: string;

  /** Show a map of the venue (default true). */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  show_map?: boolean;

  /** Show a link to a map of the venue (default true). */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  show_map_link?: boolean;

  /** Leave the event out of lists (default false). */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  hide_from_listings?: boolean;

  /** Sticky in calendar views (default false). */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  sticky?: boolean;

  /** Featured on the site (default false). */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  featured?: boolean;

  /** The event sells tickets (default false). */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  ticketed?: boolean;

  /** ID of an existing parent event; 0 for none. */
  @IsOmittable()
  @ToInteger()
  @IsInt()
  @Min(0)
  @Max(MAX_ID)
  post_parent?: number;

  /**
   * RFC 5545 `RRULE:`, `RDATE` and `EXDATE` lines (at most 20), read in the event's zone with its
   * start as DTSTART: the event becomes a series with an event per occurrence. `null` or [] removes it.
   */
  @ValidateIf((_object, value: unknown) => value !== undefined && value !== null)
  @IsArray()
  @ArrayMaxSize(MAX_RECURRENCE_LINES)
  @IsString({ each: true })
  @MaxLength(MAX_RECURRENCE_LINE, { each: true })
  @ApiProperty({
    required: false,
    nullable: true,
    type: 'array',
    items: { type: 'string', maxLength: MAX_RECURRENCE_LINE },
    maxItems: MAX_RECURRENCE_LINES,
    example: ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270630T235959Z'],
  })
  recurrence?: string[] | null;

  /** Password readers must send to see the event; `""` removes it. Never returned. */
  @IsOmittable()
  @IsText(255)
  password?: string;

  /** Category IDs or names (unknown names create categories), array or comma list; `""` or [] clears. */
  @Allow()
  @ApiProperty({ required: false, ...ID_OR_NAME_LIST })
  categories?: unknown;

  /** Tag IDs or names (unknown names create tags), array or comma list; `""` or [] clears. */
  @Allow()
  @ApiProperty({ required: false, ...ID_OR_NAME_LIST })
  tags?: unknown;

  /** Venue: an ID, `{id}` or an inline venue object (reused when it exists); 0, `""` or [] unlinks. */
  @Allow()
  @ApiProperty({
    required: false,
    oneOf: [LINK_ID, { type: 'object' }, { type: 'string' }],
  })
  venue?: unknown;

  /** Organizers: IDs, a comma list, `{id}` or inline organizer objects, mixed, in order; [] unlinks. */
  @Allow()
  @ApiProperty({
    required: false,
    oneOf: [
      {
        type: 'array',
        maxItems: MAX_LIST_ITEMS,
        items: { oneOf: [LIST_ID, { type: 'object' }] },
      },
      LINK_ID,
      { type: 'string' },
      { type: 'object' },
    ],
  })
  organizer?: unknown;
}
