import {
  ContentMapOptions,
  ContentParts,
  contentRecord,
  jsonLdBase,
} from '../posts/content-record';
import { withoutEmptyStrings } from '../posts/post-fields';
import { VenueRecordDto } from './dto/venue-record.dto';
import { Venue } from './entities/venue.entity';

/** The venue record of docs/api.md §6 (order: see mapVenue; schema: VenueRecordDto). */
export type VenueRecord = VenueRecordDto;

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
  const address = postalAddress(venue);
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

type AddressFields =
  'address' | 'city' | 'stateprovince' | 'state' | 'province' | 'zip' | 'country';

/** schema.org PostalAddress of a venue (entity or record); empty parts left out. */
export function postalAddress(
  venue: Partial<Record<AddressFields, string | null>>,
): Record<string, unknown> {
  return withoutEmptyStrings({
    '@type': 'PostalAddress',
    streetAddress: venue.address ?? '',
    addressLocality: venue.city ?? '',
    addressRegion: venue.stateprovince || venue.state || venue.province || '',
    postalCode: venue.zip ?? '',
    addressCountry: venue.country ?? '',
  });
}
