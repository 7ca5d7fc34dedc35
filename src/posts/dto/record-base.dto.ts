import type { PostStatus } from '../../auth/policy';
import type { Language } from '../../i18n/language';
import { ImageDto } from '../../common/dto/image.dto';
import type { ExternalKeyDto } from './external-key.dto';
import {
  ApiExternalKeyProperty,
  ApiImageProperty,
  ApiJsonLdProperty,
  ApiLanguageProperty,
  ApiLanguagesProperty,
  ApiStatusProperty,
} from './schema-helpers';

/** Fields every event, venue and organizer record has (docs/api.md §6); the mappers set the wire order. */
export class RecordBaseDto {
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
  /** iCalendar (absolute): the event itself (`/events/{id}.ics`), or the feed of a venue's or organizer's events (`/events.ics?venue=<id>`). */
  ical_url: string;
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
  /** The record's key in the system it comes from (docs/api.md §17), or null. */
  @ApiExternalKeyProperty()
  external_id: ExternalKeyDto | null;
  @ApiJsonLdProperty()
  json_ld?: Record<string, unknown>;
}
