import type { PostStatus } from '../../../src/auth/policy';
import type { RequestContext } from '../../../src/common/http/request-context';
import { EventOrganizer } from '../../../src/events/entities/event-organizer.entity';
import { EventTranslation } from '../../../src/events/entities/event-translation.entity';
import { Event } from '../../../src/events/entities/event.entity';
import type { Language } from '../../../src/i18n/language';
import { API, TestApp, USERS } from './test-app';

/*
 * Helpers shared by the venue and organizer suites: events inserted straight
 * into the database (the events API is built elsewhere), request contexts for
 * calling the services the events module uses, and common matchers.
 */

/** A wire date `YYYY-MM-DD HH:MM:SS`. */
export const WIRE_DATE = expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

export const DAY = 24 * 60 * 60;

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export interface EventRow {
  status?: PostStatus;
  authorId?: number;
  /** Unix seconds; default a day from now. */
  startAt?: number;
  venueId?: number | null;
  organizerIds?: number[];
}

let eventCounter = 0;

/** Inserts an event (with a Dutch title) and its organizer links; returns its ID. */
export async function insertEvent(t: TestApp, row: EventRow = {}): Promise<number> {
  const startAt = row.startAt ?? nowSeconds() + DAY;
  const now = nowSeconds();
  const event = await t.dataSource.getRepository(Event).save({
    authorId: row.authorId ?? USERS.editor.id,
    status: row.status ?? 'publish',
    publishedAt: now,
    modifiedAt: now,
    imageId: null,
    imageUrl: null,
    timezone: 'UTC',
    startLocal: '2030-01-01 10:00:00',
    endLocal: '2030-01-01 12:00:00',
    startAt,
    endAt: startAt + 7200,
    cost: null,
    website: null,
    parentId: null,
    passwordHash: null,
    venueId: row.venueId ?? null,
  });
  eventCounter += 1;
  await t.dataSource.getRepository(EventTranslation).save({
    eventId: event.id,
    language: 'nl',
    slug: `event-${eventCounter}-${event.id}`,
    title: `Event ${event.id}`,
    description: null,
    excerpt: null,
  });
  await t.dataSource.getRepository(EventOrganizer).save(
    (row.organizerIds ?? []).map((organizerId, position) => ({
      eventId: event.id,
      organizerId,
      position,
    })),
  );
  return event.id;
}

export async function eventVenueId(t: TestApp, eventId: number): Promise<number | null> {
  const event = await t.dataSource.getRepository(Event).findOneByOrFail({ id: eventId });
  return event.venueId;
}

export async function eventOrganizerIds(t: TestApp, eventId: number): Promise<number[]> {
  const rows = await t.dataSource
    .getRepository(EventOrganizer)
    .find({ where: { eventId }, order: { position: 'ASC' } });
  return rows.map((row) => row.organizerId);
}

/**
 * A venue or organizer record as the API answers it, generated values matched
 * loosely: the shared fields with their defaults, then `fields` (the kind's own).
 */
export function expectedRecord(
  kind: 'venue' | 'organizer',
  id: number,
  name: string,
  slug: string,
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  const language = (fields.language as string | undefined) ?? 'nl';
  return {
    id,
    author: String(USERS.author.id),
    status: 'publish',
    date: WIRE_DATE,
    date_utc: WIRE_DATE,
    modified: WIRE_DATE,
    modified_utc: WIRE_DATE,
    url: `http://calendar.test/${language}/${kind}/${slug}/`,
    rest_url: apiUrl(`/${kind}s/${id}`),
    ical_url: apiUrl(`/events.ics?${kind}=${id}`),
    [kind]: name,
    slug,
    image: false,
    global_id: globalIdOf(kind, id),
    global_id_lineage: [globalIdOf(kind, id)],
    language,
    languages: [language],
    external_id: null,
    ...fields,
  };
}

/** A record's keys in the documented order (docs/api.md §6): the shared fields around the kind's own. */
export function recordKeys(kind: 'venue' | 'organizer', own: string[]): string[] {
  return [
    ...[
      'id',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'rest_url',
      'ical_url',
    ],
    ...[kind, 'description', 'excerpt', 'slug', 'image'],
    ...own,
    ...['global_id', 'global_id_lineage', 'language', 'languages', 'external_id'],
  ];
}

/** The RequestContext a controller would pass, for calling services directly. */
export function contextFor(
  user: keyof typeof USERS | undefined,
  language: Language = 'nl',
): RequestContext {
  return { language, user: user ? USERS[user] : undefined, apiUrl: `http://api.test${API}` };
}

/** An absolute {api} URL as a request reached it (supertest listens on a random local port). */
export function apiUrl(path: string): unknown {
  const escaped = `${API}${path}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${escaped}$`));
}

/** `global_id` as documented (docs/api.md, "Records"): unique across events, venues and organizers. */
export function globalIdOf(kind: 'event' | 'venue' | 'organizer', id: number): string {
  const offset = { event: 2, venue: 1, organizer: 0 }[kind];
  return `calendar.test?id=${3 * id - offset}`;
}
