import { ContentRecordDto } from '../../posts/dto/content-record.dto';

/** A venue (docs/api.md §6). */
export class VenueRecordDto extends ContentRecordDto {
  /** The venue's name. */
  venue: string;
  address?: string;
  city?: string;
  country?: string;
  province?: string;
  state?: string;
  zip?: string;
  phone?: string;
  website?: string;
  stateprovince?: string;
  /** Latitude, or null when unknown. */
  geo_lat: number | null;
  /** Longitude, or null when unknown. */
  geo_lng: number | null;
  show_map: boolean;
  show_map_link: boolean;
}
