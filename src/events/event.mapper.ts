import { postalAddress } from '../venues/venue.mapper';
import { FixedOffsetZone } from 'luxon';
import {
  globalId,
  imageField,
  permalink,
  publicationFields,
  withoutEmptyStrings,
} from '../posts/post-fields';
import { htmlToText } from '../common/text/html-text';
import { parseZone, utcWire, wireDetails, zoneIso, zoneWire } from '../common/time/dates';
import type { Language } from '../i18n/language';
import { TEXT } from '../i18n/messages';
import { languagesOf, pickTranslation, translationsOf } from '../i18n/translation';
import type { OrganizerRecord } from '../organizers/organizer.mapper';
import type { TermRecord } from '../terms/term.mapper';
import type { VenueRecord } from '../venues/venue.mapper';
import { externalKeyField } from '../posts/external-keys';
import { costDetails, costFromStorage, formatCost } from './cost';
import { EventRecordDto } from './dto/event-record.dto';
import { EventTranslation } from './entities/event-translation.entity';
import { Event } from './entities/event.entity';
import { zoneAbbreviation } from './event-times';

/** The event record of docs/api.md §6, fields in the documented order (schema: EventRecordDto). */
export type EventRecord = EventRecordDto;

/** The records an event embeds, already filtered to what the caller may see. */
export interface EventLinks {
  categories: TermRecord[];
  tags: TermRecord[];
  venue?: VenueRecord;
  organizers: OrganizerRecord[];
}

/** The event columns a record is made of (with `id`): all a read of records needs to load. */
export const EVENT_RECORD_COLUMNS = [
  'authorId',
  'status',
  'publishedAt',
  'modifiedAt',
  'imageId',
  'imageUrl',
  'timezone',
  'startAt',
  'endAt',
  'allDay',
  'cost',
  'website',
  'showMap',
  'showMapLink',
  'hideFromListings',
  'sticky',
  'featured',
  'ticketed',
  'parentId',
  'passwordHash',
  'venueId',
  'recurrence',
  'seriesId',
  'externalSource',
  'externalId',
] as const satisfies ReadonlyArray<keyof Event>;

/** The translation columns a record is made of. */
export const EVENT_RECORD_TEXTS = [
  'language',
  'title',
  'description',
  'excerpt',
  'slug',
] as const satisfies ReadonlyArray<keyof EventTranslation>;

/** What an event record is mapped from: an Event entity, or just these columns of its rows. */
export type EventRecordRow = Pick<Event, 'id' | (typeof EVENT_RECORD_COLUMNS)[number]> & {
  translations: Array<Pick<EventTranslation, (typeof EVENT_RECORD_TEXTS)[number]>>;
};

export interface EventMapOptions {
  language: Language;
  apiUrl: string;
  siteUrl: string;
  siteZone: string;
  withJsonLd: boolean;
  withTranslations: boolean;
  /** Password-protected and shown to a caller without the password: blanked (docs/api.md §6). */
  blanked: boolean;
}

export function mapEvent(
  event: EventRecordRow,
  links: EventLinks,
  options: EventMapOptions,
): EventRecord {
  const shown = pickTranslation(
    event.translations,
    options.language,
  ) as EventRecordRow['translations'][number];
  const language = shown.language as Language;
  const url = permalink(options.siteUrl, language, 'event', shown.slug);
  const id = globalId(options.siteUrl, 'event', event.id);
  const zone = parseZone(event.timezone) ?? FixedOffsetZone.utcInstance;
  const [startWire, endWire] = [zoneWire(event.startAt, zone), zoneWire(event.endAt, zone)];
  const [utcStart, utcEnd] = [utcWire(event.startAt), utcWire(event.endAt)];
  const cost = costDetails(costFromStorage(event.cost));
  const blank = options.blanked;
  const flag = (value: boolean) => (blank ? null : value);
  const record: EventRecord = {
    id: event.id,
    global_id: id,
    global_id_lineage: [id],
    author: String(event.authorId),
    status: event.status,
    ...publicationFields(event, options.siteZone),
    url,
    rest_url: `${options.apiUrl}/events/${event.id}`,
    ical_url: `${options.apiUrl}/events/${event.id}.ics`,
    title: shown.title,
    description: blank ? '' : (shown.description ?? ''),
    excerpt: blank ? '' : (shown.excerpt ?? ''),
    slug: shown.slug,
    image: blank ? false : imageField(event),
    all_day: flag(event.allDay),
    start_date: startWire,
    start_date_details: wireDetails(startWire),
    end_date: endWire,
    end_date_details: wireDetails(endWire),
    utc_start_date: utcStart,
    utc_start_date_details: wireDetails(utcStart),
    utc_end_date: utcEnd,
    utc_end_date_details: wireDetails(utcEnd),
    timezone: event.timezone,
    timezone_abbr: zoneAbbreviation(event.startAt, zone, event.timezone),
    // Generated words follow the request's language, not the texts' (docs/api.md §2).
    cost: blank ? '' : formatCost(cost, TEXT.free[options.language]),
    cost_details: blank ? { ...cost, values: [] } : cost,
    website: blank ? '' : event.website || url,
    show_map: flag(event.showMap),
    show_map_link: flag(event.showMapLink),
    hide_from_listings: flag(event.hideFromListings),
    sticky: flag(event.sticky),
    featured: flag(event.featured),
    ticketed: flag(event.ticketed),
    post_parent: event.parentId ?? 0,
    series_id: event.seriesId,
    recurrence: event.recurrence === null ? null : (JSON.parse(event.recurrence) as string[]),
    password_protected: event.passwordHash !== null,
    categories: blank ? [] : links.categories,
    tags: blank ? [] : links.tags,
    venue: blank || !links.venue ? [] : links.venue,
    organizer: blank ? [] : links.organizers,
    language,
    languages: languagesOf(event.translations),
    external_id: externalKeyField(event),
  };
  if (options.withJsonLd) {
    record.json_ld = eventJsonLd(
      record,
      zoneIso(event.startAt, zone),
      zoneIso(event.endAt, zone),
      links,
    );
  }
  if (options.withTranslations) {
    record.translations = translationsOf(event.translations, (t) => ({
      title: t.title,
      description: t.description ?? '',
      excerpt: t.excerpt ?? '',
      slug: t.slug,
    }));
  }
  return record;
}

/** schema.org Event with its place, organizers and lowest price; empty members left out. */
function eventJsonLd(
  record: EventRecord,
  start: string,
  end: string,
  links: EventLinks,
): Record<string, unknown> {
  const { values, currency_code } = record.cost_details;
  return withoutEmptyStrings({
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: record.title,
    description: htmlToText(record.excerpt || record.description, 'line'),
    image: record.image ? (record.image.url ?? '') : '',
    url: record.url,
    startDate: start,
    endDate: end,
    ...(links.venue ? { location: place(links.venue) } : {}),
    ...(links.organizers.length > 0 ? { organizer: links.organizers.map(organization) } : {}),
    ...(values.length > 0
      ? {
          offers: withoutEmptyStrings({
            '@type': 'Offer',
            price: values[0],
            priceCurrency: currency_code,
            url: record.website,
          }),
        }
      : {}),
  });
}

function place(venue: VenueRecord): Record<string, unknown> {
  const address = postalAddress(venue);
  return withoutEmptyStrings({
    '@type': 'Place',
    name: venue.venue,
    ...(Object.keys(address).length > 1 ? { address } : {}),
    ...(venue.geo_lat !== null && venue.geo_lng !== null
      ? { geo: { '@type': 'GeoCoordinates', latitude: venue.geo_lat, longitude: venue.geo_lng } }
      : {}),
    telephone: venue.phone ?? '',
    url: venue.url,
  });
}

function organization(organizer: OrganizerRecord): Record<string, unknown> {
  return withoutEmptyStrings({
    '@type': 'Organization',
    name: organizer.organizer,
    telephone: organizer.phone ?? '',
    email: organizer.email ?? '',
    url: organizer.website || organizer.url,
  });
}
