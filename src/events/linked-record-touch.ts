import type { EntityManager } from 'typeorm';
import { Event } from './entities/event.entity';

/*
 * A venue or organizer is written into its events' iCalendar (LOCATION,
 * ORGANIZER): when it changes, each event that links it gets a new revision
 * (SEQUENCE) and linked modification time (LAST-MODIFIED, docs/api.md §14),
 * in the same transaction. Neither is part of the JSON record, which embeds
 * the linked record and is announced under its own kind (docs/sync.md).
 */

const TOUCH = { revision: () => 'revision + 1' };

/** The events at this venue (one indexed UPDATE). */
export async function touchEventsOfVenue(
  manager: EntityManager,
  venueId: number,
  now: number,
): Promise<void> {
  await manager
    .createQueryBuilder()
    .update(Event)
    .set({ ...TOUCH, linkedModifiedAt: now })
    .where('venue_id = :venueId', { venueId })
    .execute();
}

/** The events this organizer is linked to (one UPDATE over the link table's organizer index). */
export async function touchEventsOfOrganizer(
  manager: EntityManager,
  organizerId: number,
  now: number,
): Promise<void> {
  await manager
    .createQueryBuilder()
    .update(Event)
    .set({ ...TOUCH, linkedModifiedAt: now })
    .where('id IN (SELECT event_id FROM event_organizers WHERE organizer_id = :organizerId)', {
      organizerId,
    })
    .execute();
}
