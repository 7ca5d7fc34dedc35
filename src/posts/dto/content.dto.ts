import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import {
  AllowEmptyString,
  IsHttpUrl,
  IsId,
  IsText,
  ToBoolean,
  ToInteger,
} from '../../common/validation/decorators';
import { PostListQueryDto } from './post-query.dto';
import { PostWriteDto } from './post-write.dto';

/** Writable fields venues and organizers share, besides the name (docs/api.md §6). */
export class ContentWriteDto extends PostWriteDto {
  /** Contact telephone number. */
  @IsOptional()
  @IsText(255)
  phone?: string;

  /** Website: an http(s) URL, or `""` to remove it. */
  @IsOptional()
  @AllowEmptyString()
  @IsHttpUrl()
  website?: string;
}

/** Values of `orderby` on venue and organizer lists (docs/api.md §5.2). */
export const CONTENT_ORDERBY = ['date', 'relevance'] as const;

/** List parameters of venues and organizers (docs/api.md §5, §5.2). */
export class ContentListQueryDto extends PostListQueryDto {
  /** Words that must all begin a word of one of the record's searchable fields. */
  @IsOptional()
  @IsText(200)
  search?: string;

  /**
   * `date` (default): by publication date, then ID, newest first.
   * `relevance`: best match first (then by date); without search words, by date.
   */
  @IsOptional()
  @IsIn(CONTENT_ORDERBY)
  orderby?: (typeof CONTENT_ORDERBY)[number];

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
