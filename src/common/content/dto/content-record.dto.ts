import type { PostStatus } from '../../../auth/policy';
import type { Language } from '../../../i18n/language';
import { ImageDto } from '../../dto/image.dto';
import {
  ApiImageProperty,
  ApiJsonLdProperty,
  ApiLanguageProperty,
  ApiLanguagesProperty,
  ApiStatusProperty,
  ApiTranslationsProperty,
} from '../../dto/schema-helpers';

/** Fields every venue and organizer record has (contract §6); empty optional strings are left out. */
export class ContentRecordDto {
  id: number;
  /** The author's user ID, as a string. */
  author: string;
  @ApiStatusProperty()
  status: PostStatus;
  /** Publication date in the site's time zone, `YYYY-MM-DD HH:MM:SS`. */
  date: string;
  /** Publication date in UTC. */
  date_utc: string;
  /** Last modification in the site's time zone. */
  modified: string;
  /** Last modification in UTC. */
  modified_utc: string;
  /** Public permalink. */
  url: string;
  /** This record in the API. */
  rest_url: string;
  description?: string;
  excerpt?: string;
  slug: string;
  @ApiImageProperty()
  image: ImageDto | false;
  /** `<site host>?id=<id>`. */
  global_id: string;
  global_id_lineage: string[];
  @ApiLanguageProperty()
  language: Language;
  @ApiLanguagesProperty()
  languages: Language[];
  @ApiJsonLdProperty()
  json_ld?: Record<string, unknown>;
  @ApiTranslationsProperty()
  translations?: Partial<Record<Language, Record<string, string>>>;
}
