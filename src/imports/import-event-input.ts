import type { CreateEventDto } from '../events/dto/create-event.dto';
import type { ImportItem } from './import-item';
import type { ImportTarget } from './import-report';
import type { LinkedRecord } from './import-lookups';

/*
 * One feed item as the body of an event write (docs/api.md "Imports"): the
 * events' own create and update flows then write it, so an import's events
 * are checked, stored, linked and announced exactly as API writes.
 */

/** What the chunk resolved before the items' writes: linked records by key, categories by name. */
export interface ResolvedLinks {
  venues: ReadonlyMap<string, LinkedRecord>;
  organizers: ReadonlyMap<string, LinkedRecord>;
  categories: ReadonlyMap<string, number>;
}

/** The longest `website` an event takes (its column, and the write DTO's check). */
const MAX_WEBSITE = 2048;

/**
 * The write body of an item: every field the feed gives, so an update
 * replaces what the last import wrote (a field the item lost is cleared).
 * A detached instance carries no rule and no key (its series holds them).
 */
export function eventInputOf(
  item: ImportItem,
  target: ImportTarget,
  links: ResolvedLinks,
): CreateEventDto {
  const instance = item.recurrenceId !== null;
  const input: CreateEventDto = {
    title: item.title,
    description: item.description,
    all_day: item.allDay,
    timezone: item.start.timezone,
    start_date: item.start.local,
    end_date: item.end.local,
    website: item.url && item.url.length <= MAX_WEBSITE ? item.url : '',
    status: item.visibility === 'private' && target.status === 'publish' ? 'private' : target.status,
    venue: venueInput(item, target, links.venues),
    organizer: organizerInput(item, target, links.organizers),
    categories: [
      ...new Set([
        ...item.categories.flatMap((name) => links.categories.get(categoryKey(name)) ?? []),
        ...target.categoryIds,
      ]),
    ],
  };
  if (!instance) {
    input.recurrence = item.recurrence.length > 0 ? item.recurrence : null;
    input.external_id = { source: target.source, id: item.uid };
  }
  return input;
}

/**
 * LOCATION/GEO: the venue holding the item's key, or a new one made with it;
 * none when that venue is in the trash (a user took it out of use).
 */
function venueInput(
  item: ImportItem,
  target: ImportTarget,
  venues: ReadonlyMap<string, LinkedRecord>,
): unknown {
  if (!item.venue) return null;
  const found = venues.get(item.venue.key);
  if (found) return found.trashed ? null : { id: found.id };
  return {
    external_id: { source: target.source, id: item.venue.key },
    venue: item.venue.name,
    ...(item.venue.geo ? { geo_lat: item.venue.geo.lat, geo_lng: item.venue.geo.lng } : {}),
  };
}

/** ORGANIZER: as the venue, by its key. */
function organizerInput(
  item: ImportItem,
  target: ImportTarget,
  organizers: ReadonlyMap<string, LinkedRecord>,
): unknown {
  if (!item.organizer) return [];
  const found = organizers.get(item.organizer.key);
  if (found) return found.trashed ? [] : [{ id: found.id }];
  return [
    {
      external_id: { source: target.source, id: item.organizer.key },
      organizer: item.organizer.name,
      ...(item.organizer.email ? { email: item.organizer.email } : {}),
    },
  ];
}

/** A category name as the chunk resolves it: names that differ only in case are one category. */
export function categoryKey(name: string): string {
  return name.trim().toLowerCase();
}
