import { FixedOffsetZone } from 'luxon';
import type { SelectQueryBuilder } from 'typeorm';
import type { RequestContext } from '../common/http/request-context';
import { parseZone } from '../common/time/dates';
import { EventTranslation } from '../events/entities/event-translation.entity';
import { Event } from '../events/entities/event.entity';
import type {
  EventLinkRows,
  EventRecordsService,
  LinkedRecordCache,
} from '../events/event-records.service';
import { otherLanguage, type Language } from '../i18n/language';
import { permalink } from '../posts/post-fields';
import { CATEGORIES } from '../terms/taxonomies';
import { compareTermNames, type TermRecord } from '../terms/term.mapper';
import { dateTimeDigits } from './ical-dates';
import { organizerLine, rowDateLines, venueLines, type VeventParts } from './ical-event';

/*
 * The feed's lean path (docs/api.md §14): a VEVENT needs a dozen columns of
 * the event, its shown texts, venue, first organizer and category names, so
 * a feed batch reads just those (the event columns in the keyset query
 * itself) and fills only the fields of the record the VEVENT writer reads,
 * with the same rules as the JSON mapper (mapEvent): texts in the request's
 * language or the other, blanking of locked events, the linked records the
 * caller may see, categories by name. No entities, no JSON record.
 */

/** The event columns a VEVENT needs, as the keyset query selects them. */
export const FEED_COLUMNS: Array<[string, string]> = [
  ['e.id', 'id'],
  ['e.startAt', 'startAt'],
  ['e.endAt', 'endAt'],
  ['e.seriesId', 'seriesId'],
  ['e.revision', 'revision'],
  ['e.status', 'status'],
  ['e.authorId', 'authorId'],
  ['e.publishedAt', 'publishedAt'],
  ['e.modifiedAt', 'modifiedAt'],
  ['e.linkedModifiedAt', 'linkedModifiedAt'],
  ['e.timezone', 'timezone'],
  ['e.allDay', 'allDay'],
  ['e.passwordHash', 'passwordHash'],
  ['e.venueId', 'venueId'],
  // The texts shown (the request's language, else the other one), joined by joinFeedTexts().
  ['COALESCE(ft.language, fo.language)', 'language'],
  ['COALESCE(ft.title, fo.title)', 'title'],
  ['COALESCE(ft.description, fo.description)', 'description'],
  ['COALESCE(ft.excerpt, fo.excerpt)', 'excerpt'],
  ['COALESCE(ft.slug, fo.slug)', 'slug'],
];

/**
 * Joins the texts a feed row shows: the request's language (`ft`), else
 * the other language (`fo`, joined only when `ft` is missing, so COALESCE
 * never mixes the two). Both joins are on the unique (event, language) index.
 */
export function joinFeedTexts(qb: SelectQueryBuilder<Event>, language: Language): void {
  qb.leftJoin(EventTranslation, 'ft', 'ft.eventId = e.id AND ft.language = :feedLanguage', {
    feedLanguage: language,
  }).leftJoin(
    EventTranslation,
    'fo',
    'fo.eventId = e.id AND fo.language = :feedOther AND ft.id IS NULL',
    { feedOther: otherLanguage(language) },
  );
}

type Raw = string | number | boolean | null;

/** One row of the keyset query, typed. */
export interface FeedRow {
  id: number;
  startAt: number;
  endAt: number;
  seriesId: number | null;
  revision: number;
  status: Event['status'];
  authorId: number;
  publishedAt: number;
  modifiedAt: number;
  /** When a venue or organizer it links last changed (0: never). */
  linkedModifiedAt: number;
  timezone: string;
  allDay: boolean;
  passwordHash: string | null;
  venueId: number | null;
  language: Language;
  title: string;
  description: string | null;
  excerpt: string | null;
  /** Null only for an event without texts (never written so). */
  slug: string | null;
}

/** Drivers give BIGINT as strings (MySQL) and booleans as 0/1: the row in its types. */
export function feedRow(raw: Record<string, Raw>): FeedRow {
  return {
    id: Number(raw.id),
    startAt: Number(raw.startAt),
    endAt: Number(raw.endAt),
    seriesId: raw.seriesId === null ? null : Number(raw.seriesId),
    revision: Number(raw.revision),
    status: raw.status as Event['status'],
    authorId: Number(raw.authorId),
    publishedAt: Number(raw.publishedAt),
    modifiedAt: Number(raw.modifiedAt),
    linkedModifiedAt: Number(raw.linkedModifiedAt ?? 0),
    timezone: raw.timezone as string,
    allDay: raw.allDay === true || Number(raw.allDay) === 1,
    passwordHash: (raw.passwordHash as string | null) ?? null,
    venueId: raw.venueId === null ? null : Number(raw.venueId),
    language: raw.language as Language,
    title: raw.title as string,
    description: raw.description as string | null,
    excerpt: raw.excerpt as string | null,
    slug: raw.slug as string | null,
  };
}

/** What the lean records need beside the rows. */
export interface LeanContext {
  records: EventRecordsService;
  ctx: RequestContext;
  siteUrl: string;
  /** The host in every UID. */
  uidHost: string;
  /** The feed's linked records while a batch is read (its series' too); venues and organizers leave it as lines. */
  linked: LinkedRecordCache;
  /** The feed's venues and organizers as the lines its VEVENTs write. */
  lines: FeedLinkedLines;
  /** True when the caller gets the event blanked (protected, no password, may not edit). */
  locked: (row: FeedRow) => boolean;
}

/**
 * A feed's LOCATION and ORGANIZER lines by venue and organizer ID, kept for
 * the whole feed: '' for one the caller may not see (or gone). A line is a
 * few hundred bytes where its mapped record took kilobytes of heap, and a
 * feed at 1M events meets every venue and organizer (docs/performance.md, Memory).
 */
export interface FeedLinkedLines {
  venues: Map<number, string>;
  organizers: Map<number, string>;
  /** A kind that would pass this many starts over (as LinkedRecordStore does): a feed's memory stays bounded. */
  maxPerKind: number;
}

export function feedLinkedLines(maxPerKind: number): FeedLinkedLines {
  return { venues: new Map(), organizers: new Map(), maxPerKind };
}

/** What a batch's VEVENTs need beside their rows, per event: categories, the first organizer's line, the venue's lines. */
export interface FeedLinks {
  categoriesOf: Map<number, TermRecord[]>;
  organizerOf: Map<number, string>;
  locationOf: Map<number, string>;
}

/**
 * The linked records of a batch's rows from its link rows
 * (EventRecordsService.linkRows: term links of both taxonomies, the
 * categories picked here by their records' taxonomy; joining `terms` for it
 * made MariaDB look the terms up per link, 24 ms a batch against 5 ms).
 * Only the venues and organizers not met in earlier batches are read, and
 * kept as their lines (FeedLinkedLines); terms stay records in the feed's cache.
 */
export async function feedLinks(
  rows: FeedRow[],
  { termLinks, organizerLinks }: EventLinkRows,
  lean: LeanContext,
): Promise<FeedLinks> {
  const { lines, linked } = lean;
  // Started over before this batch's IDs are looked up: every one it needs is then read again.
  for (const kept of [lines.venues, lines.organizers])
    if (kept.size >= lines.maxPerKind) kept.clear();
  const newVenues = unseen(
    rows.flatMap((row) => (row.venueId ? [row.venueId] : [])),
    lines.venues,
  );
  const newOrganizers = unseen(
    organizerLinks.map((link) => link.organizerId),
    lines.organizers,
  );
  const { terms, organizers, venues, visible } = await lean.records.linkedRecords(
    termLinks.map((link) => link.termId),
    newOrganizers,
    newVenues,
    lean.ctx,
    linked,
  );
  for (const id of newVenues) {
    const venue = visible(venues.get(id));
    lines.venues.set(id, venue ? venueLines(venue) : '');
  }
  for (const id of newOrganizers) {
    const organizer = visible(organizers.get(id));
    lines.organizers.set(id, organizer ? organizerLine(organizer) : '');
  }
  // Their lines are what the rest of the feed needs: the records go.
  linked.clearKind(linked.venues);
  linked.clearKind(linked.organizers);
  const categoriesOf = new Map<number, TermRecord[]>();
  for (const link of termLinks) {
    const term = terms.get(link.termId);
    if (term?.taxonomy !== CATEGORIES.taxonomy) continue;
    const eventId = link.eventId;
    const found = categoriesOf.get(eventId);
    if (found) found.push(term);
    else categoriesOf.set(eventId, [term]);
  }
  // The first organizer the caller may see, by position.
  const organizerOf = new Map<number, string>();
  for (const link of organizerLinks) {
    const eventId = link.eventId;
    if (organizerOf.has(eventId)) continue;
    const line = lines.organizers.get(link.organizerId);
    if (line) organizerOf.set(eventId, line);
  }
  // Taken now: the next batch's links are read while this one is written, and may start the lines over.
  const locationOf = new Map<number, string>();
  for (const row of rows) {
    const line = row.venueId ? lines.venues.get(row.venueId) : undefined;
    if (line) locationOf.set(row.id, line);
  }
  return { categoriesOf, organizerOf, locationOf };
}

/** The IDs not yet in `seen`, each once. */
function unseen(ids: number[], seen: Map<number, string>): number[] {
  return [...new Set(ids)].filter((id) => !seen.has(id));
}

/** What the VEVENTs of a batch's rows are written from, in their order (no I/O). */
export function leanVevents(rows: FeedRow[], links: FeedLinks, lean: LeanContext): VeventParts[] {
  // An event without texts is no record to show (as in loadEvents).
  return rows.flatMap((row) => {
    if (row.slug === null) return [];
    const blank = lean.locked(row);
    const zone = parseZone(row.timezone) ?? FixedOffsetZone.utcInstance;
    const categories = blank ? [] : (links.categoriesOf.get(row.id) ?? []);
    if (categories.length > 1) {
      categories.sort(compareTermNames);
    }
    // LAST-MODIFIED moves when LOCATION or ORGANIZER does (docs/api.md §14).
    const modified = `${dateTimeDigits(Math.max(row.modifiedAt, row.linkedModifiedAt))}Z`;
    const parts: VeventParts = {
      uid: row.id,
      uidHost: lean.uidHost,
      modified,
      revision: row.revision,
      title: row.title,
      dates: rowDateLines(row, zone, blank ? null : row.allDay),
      url: permalink(lean.siteUrl, row.language, 'event', row.slug),
      reduced: blank && row.passwordHash !== null,
      created: `${dateTimeDigits(row.publishedAt)}Z`,
      description: blank ? '' : row.description || row.excerpt || '',
      location: blank ? undefined : links.locationOf.get(row.id),
      organizer: blank ? undefined : links.organizerOf.get(row.id),
      categories,
      status: row.status,
    };
    return [parts];
  });
}
