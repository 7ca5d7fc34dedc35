import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import {
  EXTERNAL_SOURCE_PATTERN,
  IsExternalSource,
  MAX_EXTERNAL_SOURCE,
} from '../../posts/dto/external-key.dto';
import { IsIdList, ToBoolean, ToIdList } from '../../common/validation/decorators';
import { LANGUAGES } from '../../i18n/language';
import { DEFAULT_REFRESH, IsRefresh } from '../refresh';

export const IMPORT_STATUSES = ['publish', 'draft'] as const;

/**
 * How an import writes its events: the query of an uploaded `text/calendar`
 * body, and part of a URL import's JSON body.
 */
export class ImportSettingsDto {
  /** The source name its events' `external_id` carry (`{source, id: UID}`): 1–64 characters of `a-z`, `0-9`, `.`, `_`, `-`. */
  @IsDefined()
  @IsString()
  @MaxLength(MAX_EXTERNAL_SOURCE)
  @IsExternalSource()
  @ApiProperty({
    pattern: EXTERNAL_SOURCE_PATTERN.source,
    minLength: 1,
    maxLength: MAX_EXTERNAL_SOURCE,
    example: 'stadsagenda',
  })
  source: string;

  /** The language of the feed's texts; else Accept-Language, else DEFAULT_LANGUAGE. */
  @IsOptional()
  @IsIn(LANGUAGES)
  @ApiProperty({ required: false, enum: LANGUAGES })
  language?: 'nl' | 'en';

  /** Category IDs added to every imported event, besides the feed's own CATEGORIES. */
  @IsOptional()
  @ToIdList()
  @IsIdList()
  @ApiProperty({ required: false, type: [Number], maxItems: 100, default: [] })
  categories?: number[];

  /** Status of the events it creates and updates. */
  @IsOptional()
  @IsIn(IMPORT_STATUSES)
  @ApiProperty({ required: false, enum: IMPORT_STATUSES, default: 'publish' })
  status?: 'publish' | 'draft';

  /** Trash the source's events that are no longer in the feed. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  @ApiProperty({ required: false, default: true })
  trash_removed?: boolean;
}

/** A feed to import now and then on a schedule (administrators only). */
export class CreateImportDto extends ImportSettingsDto {
  /** The feed: an https:// URL of a public address. */
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  @ApiProperty({ maxLength: 2048, example: 'https://calendar.example.org/agenda.ics' })
  url: string;

  /** How often the feed is fetched again: a number and `m`, `h` or `d`, from 15m to 30d. */
  @IsOptional()
  @IsRefresh()
  @ApiProperty({
    required: false,
    default: DEFAULT_REFRESH,
    example: '6h',
    minLength: 2,
    maxLength: 6,
  })
  refresh?: string;
}
