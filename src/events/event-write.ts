import { externalKeyColumns } from '../posts/external-keys';
import { costStrings, costToStorage } from './cost';
import type { UpdateEventDto } from './dto/update-event.dto';
import { Event } from './entities/event.entity';
import { hashPassword } from './event-password';
import { resolveEventTimes } from './event-times';

/**
 * The event's own columns a write sets (docs/api.md §6): only what was sent,
 * so flags and fields left out of an update keep their values. The times
 * are recomputed when one of them is sent (or on create).
 */
export function eventColumns(
  input: UpdateEventDto,
  current: Event | undefined,
  settings: { siteZone: string; passwordKey: Buffer },
): Partial<Event> {
  const timesSent = [input.timezone, input.start_date, input.end_date, input.all_day].some(
    (value) => value !== undefined,
  );
  const columns: Partial<Event> = {
    ...(current && !timesSent ? {} : resolveEventTimes(input, current, settings.siteZone)),
    showMap: input.show_map,
    showMapLink: input.show_map_link,
    hideFromListings: input.hide_from_listings,
    sticky: input.sticky,
    featured: input.featured,
    ticketed: input.ticketed,
    ...externalKeyColumns(input.external_id),
  };
  if (input.cost !== undefined) columns.cost = costToStorage(costStrings(input.cost) ?? []);
  if (input.website !== undefined) columns.website = input.website || null;
  if (input.password !== undefined) {
    columns.passwordHash = input.password
      ? hashPassword(settings.passwordKey, input.password)
      : null;
  }
  return Object.fromEntries(
    Object.entries(columns).filter(([, value]) => value !== undefined),
  ) as Partial<Event>;
}
