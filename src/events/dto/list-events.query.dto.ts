import {
  ArrayMaxSize,
  IsBoolean,
  IsIn,
  IsNumber,
  IsOptional,
  IsPositive,
  Max,
} from 'class-validator';
import {
  IsDateInput,
  IsId,
  IsIdList,
  MAX_LIST_ITEMS,
  ToBoolean,
  ToDecimal,
  ToIdList,
  ToInteger,
  ToStringList,
  IsText,
  IsWithin,
} from '../../common/validation/decorators';
import { PostListQueryDto } from '../../posts/dto/post-query.dto';

/** Values of `orderby` (docs/api.md §5.1). */
export const EVENT_ORDERBY = ['start_date', 'relevance'] as const;

/** Half the Earth's circumference: every point lies within it. */
const MAX_RADIUS_KM = 20038;

/** `GET /events` parameters (docs/api.md §5, §5.1). */
export class ListEventsQueryDto extends PostListQueryDto {
  /** Events starting on or after this date; default yesterday 00:00:00 (SITE_TIMEZONE). */
  @IsOptional()
  @IsDateInput()
  start_date?: string;

  /** Events ending on or before this date; default now + 24 months. */
  @IsOptional()
  @IsDateInput()
  end_date?: string;

  /** Events starting on or before this date (drops the default window). */
  @IsOptional()
  @IsDateInput()
  starts_before?: string;

  /** Events starting on or after this date (drops the default window). */
  @IsOptional()
  @IsDateInput()
  starts_after?: string;

  /** Events ending on or before this date (drops the default window). */
  @IsOptional()
  @IsDateInput()
  ends_before?: string;

  /** Events ending on or after this date (drops the default window). */
  @IsOptional()
  @IsDateInput()
  ends_after?: string;

  /** `false` (default): whole days of the given dates; `true`: the exact times. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  strict_dates?: boolean;

  /**
   * Words that must all begin a word of the title, excerpt or description
   * (case and accents ignored; words under 3 characters are left out).
   */
  @IsOptional()
  @IsText(200)
  search?: string;

  /**
   * `start_date` (default): by start, then ID. `relevance`: best match first
   * (then by start); without search words, by start.
   */
  @IsOptional()
  @IsIn(EVENT_ORDERBY)
  orderby?: (typeof EVENT_ORDERBY)[number];

  /** Category slugs or IDs (any of them). */
  @IsOptional()
  @ToStringList()
  @IsText(200, { each: true })
  @ArrayMaxSize(MAX_LIST_ITEMS)
  categories?: string[];

  /** Tag slugs or IDs (any of them). */
  @IsOptional()
  @ToStringList()
  @IsText(200, { each: true })
  @ArrayMaxSize(MAX_LIST_ITEMS)
  tags?: string[];

  /** Venue IDs (any of them). */
  @IsOptional()
  @ToIdList()
  @IsIdList()
  venue?: number[];

  /** Organizer IDs (any of them). */
  @IsOptional()
  @ToIdList()
  @IsIdList()
  organizer?: number[];

  /** `true`: only featured events; `false`: only the others. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  featured?: boolean;

  /** Only these event IDs, ordered by ID; date filters and hide_from_listings are ignored. */
  @IsOptional()
  @ToIdList()
  @IsIdList()
  include?: number[];

  /** Only the child events of this event. */
  @IsOptional()
  @ToInteger()
  @IsId()
  post_parent?: number;

  /** `true`: only events with tickets; `false`: only the others. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  ticketed?: boolean;

  /** `true`: only events whose venue has coordinates; `false`: only the others. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  geoloc?: boolean;

  /** Latitude of the point to search around (with `geoloc_lng`). */
  @IsOptional()
  @ToDecimal()
  @IsWithin(90)
  geoloc_lat?: number;

  /** Longitude of the point to search around (with `geoloc_lat`). */
  @IsOptional()
  @ToDecimal()
  @IsWithin(180)
  geoloc_lng?: number;

  /** Distance from the point in kilometres; default 10. */
  @IsOptional()
  @ToDecimal()
  @IsNumber()
  @IsPositive()
  @Max(MAX_RADIUS_KM)
  geoloc_radius?: number;

  /** Shows password-protected events in full when it is theirs. */
  @IsOptional()
  @IsText(255)
  password?: string;
}
