import { ApiPropertyOptional } from '@nestjs/swagger';
import type { Language } from '../../i18n/language';
import {
  ApiLanguageProperty,
  ApiLanguagesProperty,
  ApiTranslationsProperty,
} from '../../posts/dto/schema-helpers';

export class TermUrlsDto {
  /** This term in the API. */
  self: string;
  /** The term's collection. */
  collection: string;
  /** The parent category, when there is one. */
  up?: string;
}

/** One language's texts of a term. */
export interface TermTexts {
  name: string;
  description: string;
  slug: string;
}

/** An event category or tag (docs/api.md §6). */
export class TermRecordDto {
  id: number;
  /** Published events with this term. */
  count: number;
  description: string;
  /** Public permalink. */
  url: string;
  name: string;
  slug: string;
  /** `tribe_events_cat` or `post_tag`. */
  taxonomy: string;
  /** Parent category ID, 0 for none (categories only). */
  @ApiPropertyOptional()
  parent?: number;
  @ApiPropertyOptional({ type: 'array', items: {}, maxItems: 0 })
  meta: [];
  urls: TermUrlsDto;
  /** iCalendar feed of the term's events (absolute): `/events.ics?categories=<id>` or `?tags=<id>`. */
  ical_url: string;
  @ApiLanguageProperty()
  language: Language;
  @ApiLanguagesProperty()
  languages: Language[];
  @ApiTranslationsProperty()
  translations?: Partial<Record<Language, TermTexts>>;
}
