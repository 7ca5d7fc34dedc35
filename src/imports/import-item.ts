/*
 * What parsing an iCalendar feed gives a writer (docs/api.md "Imports (draft:
 * parsing rules)"): one normalized item per VEVENT it can take, the VEVENTs it
 * skipped with their reasons, or a refusal of the whole feed. Nothing here
 * touches the database: a writer applies a result in one unit of work.
 */

/** A wall-clock time and the zone it is read in. */
export interface ImportTime {
  /** `YYYY-MM-DD HH:MM:SS`, wall-clock time in `timezone` (all-day: 00:00:00). */
  local: string;
  /** IANA zone, or `UTC`. */
  timezone: string;
}

/** A venue the writer finds or makes by its key (LOCATION, and GEO when given). */
export interface ImportVenue {
  /** `loc-` + 22 base64url characters of the SHA-256 of the normalized text and coordinates. */
  key: string;
  /** The LOCATION text, at most 200 characters. */
  name: string;
  geo: { lat: number; lng: number } | null;
}

/** An organizer the writer finds or makes by its key (ORGANIZER's CN and address). */
export interface ImportOrganizer {
  /** `org-` + 22 base64url characters of the SHA-256 of the lower-cased address (or of CN without one). */
  key: string;
  /** CN, else the address without `mailto:`; at most 200 characters. */
  name: string;
  /** The `mailto:` address, lower-cased, or null. */
  email: string | null;
}

export interface ImportItem {
  /** UID, at most 255 characters. */
  uid: string;
  /** A detached instance (RECURRENCE-ID): the series' original start of this occurrence. */
  recurrenceId: ImportTime | null;
  /** SUMMARY, at most 200 characters. */
  title: string;
  /** DESCRIPTION as written (text, or the HTML some apps put there), at most 100,000 characters. */
  description: string;
  allDay: boolean;
  /** Start in its zone. */
  start: ImportTime;
  /** End in the start's zone: the exclusive DTEND of a timed event; the last day at 23:59:59 of an all-day one. */
  end: ImportTime;
  /** RRULE/RDATE/EXDATE as docs/recurrence.md lines, read in `start.timezone`; empty when none. */
  recurrence: string[];
  venue: ImportVenue | null;
  organizer: ImportOrganizer | null;
  /** CATEGORIES, each at most 200 characters, duplicates removed; at most 101 (more than an event takes). */
  categories: string[];
  /** URL when it is http(s), else null. */
  url: string | null;
  /** STATUS: `cancelled` items are trashed by the writer, never created. */
  status: 'confirmed' | 'tentative' | 'cancelled';
  /** CLASS: PRIVATE and CONFIDENTIAL are `private`. */
  visibility: 'public' | 'private';
  /** SEQUENCE (0 when absent). */
  sequence: number;
  /** LAST-MODIFIED as `YYYY-MM-DD HH:MM:SS` UTC, or null. */
  lastModified: string | null;
  /** SHA-256 (base64url) of every field above but `sequence` and `lastModified`: equal hashes, nothing to write. */
  hash: string;
}

export type SkipReason =
  | 'malformed'
  | 'missing_uid'
  | 'missing_start'
  | 'missing_summary'
  | 'bad_dates'
  | 'unknown_timezone'
  | 'unsupported_recurrence'
  | 'property_too_long'
  | 'duplicate'
  // Given by the writer, not the parser (docs/api.md "Imports"):
  | 'no_occurrence'
  | 'rejected';

/** A VEVENT that gave no item, or whose item the writer could not write. */
export interface SkippedVevent {
  /** Its position among the feed's VEVENTs, from 1; 0 for an item the writer skipped (its UID names it). */
  index: number;
  /** Its UID when one could be read (at most 255 characters), else null. */
  uid: string | null;
  reason: SkipReason;
  /** What was wrong, in English, at most 200 characters. */
  detail: string;
}

export type RefusalReason = 'too_large' | 'too_many_events' | 'not_icalendar';

/** Why the whole feed was refused: nothing in it is imported (and nothing is trashed for it). */
export interface ImportRefusal {
  reason: RefusalReason;
  /** The limit passed (bytes or VEVENTs), or null. */
  limit: number | null;
  /** What the feed had, as far as it was read (bytes or VEVENTs). */
  found: number;
}

export interface ImportParseResult {
  items: ImportItem[];
  skipped: SkippedVevent[];
  /** Set when the feed as a whole was refused; items and skipped are then empty. */
  refused: ImportRefusal | null;
  /** X-WR-CALNAME, at most 200 characters, or null. */
  calendarName: string | null;
}

/** The bounds of one parse. */
export interface ImportLimits {
  /** Bytes of the body (default 10 MiB). */
  maxBytes: number;
  /** VEVENTs in the feed (default 20,000). */
  maxEvents: number;
  /** Characters of one unfolded content line (default 256 KiB). */
  maxLineChars: number;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxEvents: 20_000,
  maxLineChars: 256 * 1024,
};

export interface ImportParseOptions {
  limits?: Partial<ImportLimits>;
  /** The zone of floating times when the feed names none (X-WR-TIMEZONE): SITE_TIMEZONE. */
  defaultZone: string;
}
