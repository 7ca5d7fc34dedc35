/*
 * The tables the seed fills and the columns it writes, in the order the
 * generators produce them (see src/database/migrations for the schema).
 */

export interface TableSpec {
  name: string;
  columns: readonly string[];
}

/** One row: values in TableSpec column order. */
export type Row = unknown[];

const post = ['id', 'author_id', 'status', 'published_at', 'modified_at', 'image_id', 'image_url'];

export const TABLES = {
  terms: { name: 'terms', columns: ['id', 'taxonomy', 'parent_id', 'created_at', 'published_count'] },
  termTranslations: {
    name: 'term_translations',
    columns: ['id', 'term_id', 'taxonomy', 'parent_id', 'language', 'name', 'name_key', 'slug', 'description'],
  },
  venues: {
    name: 'venues',
    columns: [
      ...post,
      'address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website',
      'stateprovince', 'geo_lat', 'geo_lng', 'show_map', 'show_map_link',
    ],
  },
  venueTranslations: {
    name: 'venue_translations',
    columns: ['id', 'venue_id', 'language', 'slug', 'description', 'excerpt', 'name', 'name_key'],
  },
  organizers: { name: 'organizers', columns: [...post, 'phone', 'website', 'email'] },
  organizerTranslations: {
    name: 'organizer_translations',
    columns: ['id', 'organizer_id', 'language', 'slug', 'description', 'excerpt', 'name', 'name_key'],
  },
  events: {
    name: 'events',
    columns: [
      ...post,
      'timezone', 'start_local', 'end_local', 'start_at', 'end_at', 'all_day', 'cost', 'website',
      'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured', 'ticketed',
      'parent_id', 'password_hash', 'venue_id',
    ],
  },
  /** Series and their occurrences (docs/api.md §16): the event columns and the series' own. */
  seriesEvents: {
    name: 'events',
    columns: [
      ...post,
      'timezone', 'start_local', 'end_local', 'start_at', 'end_at', 'all_day', 'cost', 'website',
      'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured', 'ticketed',
      'parent_id', 'password_hash', 'venue_id',
      'recurrence', 'series_id', 'occurrence_date', 'materialized_until',
    ],
  },
  eventTranslations: {
    name: 'event_translations',
    columns: ['id', 'event_id', 'language', 'slug', 'title', 'description', 'excerpt'],
  },
  eventOrganizers: { name: 'event_organizers', columns: ['event_id', 'organizer_id', 'position'] },
  eventTerms: { name: 'event_terms', columns: ['event_id', 'term_id'] },
} as const satisfies Record<string, TableSpec>;

export type TableKey = keyof typeof TABLES;

/** Children before parents: the order to empty them in. */
export const DELETE_ORDER: readonly TableKey[] = [
  'eventTerms',
  'eventOrganizers',
  'eventTranslations',
  'events',
  'organizerTranslations',
  'organizers',
  'venueTranslations',
  'venues',
  'termTranslations',
  'terms',
];

export const LANGUAGES = ['nl', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** ID of the translation of record `id` in `language` (two per record, nl first). */
export function translationId(id: number, language: Language): number {
  return (id - 1) * 2 + (language === 'nl' ? 1 : 2);
}
