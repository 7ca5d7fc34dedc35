import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { DateDetailsDto } from '../../common/dto/date-details.dto';
import { RecordBaseDto } from '../../posts/dto/record-base.dto';
import { ApiTranslationsProperty } from '../../posts/dto/schema-helpers';
import type { Language } from '../../i18n/language';
import { OrganizerRecordDto } from '../../organizers/dto/organizer-record.dto';
import { TermRecordDto } from '../../terms/dto/term-record.dto';
import { VenueRecordDto } from '../../venues/dto/venue-record.dto';

/** The cost as parsed from what was sent. */
export class CostDetailsDto {
  /** The first currency sign or code found, e.g. `€`. */
  currency_symbol: string;
  /** ISO code where the symbol names one currency (€ EUR, $ USD, £ GBP), else `""`. */
  currency_code: string;
  /** Which side of the amount the symbol stands on. */
  @ApiProperty({ enum: ['prefix', 'postfix', ''] })
  currency_position: 'prefix' | 'postfix' | '';
  /** Every amount, ascending, without repeats; 0 is free. */
  values: number[];
}

/** One language's texts of an event. */
export interface EventTexts {
  title: string;
  description: string;
  excerpt: string;
  slug: string;
}

/**
 * An event (docs/api.md §6). For a password-protected event shown without its
 * password, texts, cost and links are empty and the flags null.
 */
export class EventRecordDto extends RecordBaseDto {
  title: string;
  description: string;
  excerpt: string;
  all_day: boolean | null;
  /** Start, wall-clock time in `timezone`. */
  start_date: string;
  start_date_details: DateDetailsDto;
  /** End, wall-clock time in `timezone`. */
  end_date: string;
  end_date_details: DateDetailsDto;
  utc_start_date: string;
  utc_start_date_details: DateDetailsDto;
  utc_end_date: string;
  utc_end_date_details: DateDetailsDto;
  /** IANA name or `UTC±H[:MM]`. */
  timezone: string;
  /** The zone's abbreviation at the start (CET, CEST, EDT), else its offset (`+03`). */
  timezone_abbr: string;
  /** One value, or the lowest and highest; 0 as the word for free. */
  cost: string;
  cost_details: CostDetailsDto;
  /** The event's website, else its permalink. */
  website: string;
  show_map: boolean | null;
  show_map_link: boolean | null;
  hide_from_listings: boolean | null;
  sticky: boolean | null;
  featured: boolean | null;
  ticketed: boolean | null;
  /** The parent event's ID; 0 for none. */
  post_parent: number;
  /** The series' ID on a recurring series and each of its occurrences; null on one-off events. */
  @ApiProperty({ type: 'integer', nullable: true })
  series_id: number | null;
  /** A series' RFC 5545 lines; null on occurrences and one-off events. */
  @ApiProperty({ type: 'array', items: { type: 'string' }, nullable: true })
  recurrence: string[] | null;
  password_protected: boolean;
  categories: TermRecordDto[];
  tags: TermRecordDto[];
  @ApiProperty({
    description: 'The venue, or an empty array when there is none.',
    oneOf: [{ $ref: getSchemaPath(VenueRecordDto) }, { type: 'array', items: {}, maxItems: 0 }],
  })
  venue: VenueRecordDto | [];
  /** The organizers, in the order they were given. */
  organizer: OrganizerRecordDto[];
  @ApiTranslationsProperty()
  translations?: Partial<Record<Language, EventTexts>>;
}
