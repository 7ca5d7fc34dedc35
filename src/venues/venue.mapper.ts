import {
  ContentMapOptions,
  ContentParts,
  contentRecord,
  ContentRecord,
  jsonLdBase,
  withoutEmptyStrings,
} from '../common/content/content-record';
import { Venue } from './entities/venue.entity';

/** The venue record of contract §6 (order: see mapVenue); empty strings are left out. */
export interface VenueRecord extends ContentRecord {
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
  geo_lat: number | null;
  geo_lng: number | null;
  show_map: boolean;
  show_map_link: boolean;
}

export function mapVenue(venue: Venue, options: ContentMapOptions): VenueRecord {
  return contentRecord(
    venue,
    options,
    'venue',
    {
      address: venue.address ?? '',
      city: venue.city ?? '',
      country: venue.country ?? '',
      province: venue.province ?? '',
      state: venue.state ?? '',
      zip: venue.zip ?? '',
      phone: venue.phone ?? '',
      website: venue.website ?? '',
      stateprovince: venue.stateprovince ?? '',
      geo_lat: venue.geoLat,
      geo_lng: venue.geoLng,
      show_map: venue.showMap,
      show_map_link: venue.showMapLink,
    },
    (parts) => venueJsonLd(venue, parts),
  );
}

/** Single reads: schema.org Place with its postal address and coordinates. */
function venueJsonLd(venue: Venue, parts: ContentParts): Record<string, unknown> {
  const address = withoutEmptyStrings({
    '@type': 'PostalAddress',
    streetAddress: venue.address ?? '',
    addressLocality: venue.city ?? '',
    addressRegion: venue.stateprovince || venue.state || venue.province || '',
    postalCode: venue.zip ?? '',
    addressCountry: venue.country ?? '',
  });
  return withoutEmptyStrings({
    ...jsonLdBase('Place', parts),
    ...(Object.keys(address).length > 1 ? { address } : {}),
    ...(venue.geoLat !== null && venue.geoLng !== null
      ? { geo: { '@type': 'GeoCoordinates', latitude: venue.geoLat, longitude: venue.geoLng } }
      : {}),
    telephone: venue.phone ?? '',
    sameAs: venue.website ?? '',
  });
}
