import { DateTime, type Zone } from 'luxon';
import { htmlToText } from '../common/text/html-text';
import { utcWire, zoneOffset, zoneWire } from '../common/time/dates';
import type { EventRecord } from '../events/event.mapper';
import { POST_STATUSES } from '../auth/policy';
import type { OrganizerRecord } from '../organizers/organizer.mapper';
import type { TermRecord } from '../terms/term.mapper';
import type { VenueRecord } from '../venues/venue.mapper';
import {
  CONTROL_CHARS,
  contentLine,
  dateTimeValue,
  dateValue,
  escapeText,
  headedLine,
  lineHead,
  type Params,
} from './ical-text';
import { dateTimeDigits, dayDigits, MAX_DIGIT_SECONDS, MIN_DIGIT_SECONDS } from './ical-dates';
import { zoneBlock } from './ical-zones';
import { LineText, type LineSink } from './ical-chunk';

/**
 * The fields of an event record a VEVENT is written from: a full JSON record
 * (single events, series), or only these, filled from feed rows (ical-feed-rows.ts).
 */
export type VeventRecord = Pick<
  EventRecord,
  | 'id'
  | 'title'
  | 'url'
  | 'modified_utc'
  | 'date_utc'
  | 'status'
  | 'password_protected'
  | 'all_day'
  | 'description'
  | 'excerpt'
  | 'timezone'
  | 'start_date'
  | 'end_date'
  | 'utc_start_date'
  | 'utc_end_date'
  | 'venue'
  | 'organizer'
  | 'categories'
>;

/** What a VEVENT needs beside the event's record. */
export interface FeedEvent {
  /** The record's fields exactly as the JSON read or list shows them to this caller. */
  record: VeventRecord;
  /** Grows with every write of the event and of the venue and organizers it links: SEQUENCE. */
  revision: number;
  /** When a venue or organizer the event links last changed (unix seconds, 0: never). */
  linkedModifiedAt?: number;
  /** `<id>@<host>` needs the host of PUBLIC_SITE_URL. */
  uidHost: string;
  /** An occurrence written as an instance of its series: the series' ID (UID) and RECURRENCE-ID line. */
  instanceOf?: { seriesId: number; recurrenceId: string };
  /** A series' own VEVENT: DTSTART/DTEND in the form its rule is read in, and its RRULE/RDATE/EXDATE lines. */
  series?: { dates: string; rules: string };
}

/** IANA zones the writer gives a TZID (and the feed a VTIMEZONE); the rest is written in UTC. */
export function tzidOf(record: Pick<VeventRecord, 'timezone' | 'all_day'>): string | undefined {
  if (/^UTC/i.test(record.timezone) || record.all_day === true) return undefined;
  return zoneBlock(record.timezone) ? record.timezone : undefined;
}

/**
 * One VEVENT (RFC 5545 §3.6.1) of docs/api.md §14, from the record the JSON API
 * shows: a blanked (password-protected) record gives only the summary, dates
 * and URL beside the identity lines every VEVENT must have.
 */
export function vevent(event: FeedEvent): string {
  const { record } = event;
  return veventText({
    uid: event.instanceOf?.seriesId ?? record.id,
    uidHost: event.uidHost,
    recurrenceId: event.instanceOf?.recurrenceId,
    modified: lastModified(record.modified_utc, event.linkedModifiedAt),
    revision: event.revision,
    title: record.title,
    dates: event.series ? event.series.dates + event.series.rules : dateLines(record),
    url: record.url,
    reduced: record.password_protected && record.all_day === null,
    created: utcStamp(record.date_utc),
    description: record.description || record.excerpt,
    location: Array.isArray(record.venue) ? undefined : venueLines(record.venue),
    organizer: record.organizer[0] && organizerLine(record.organizer[0]),
    categories: record.categories,
    status: record.status,
  });
}

/** A VEVENT's values, its times already in iCalendar form: what the record and the feed's rows both give. */
export interface VeventParts {
  /** The ID in the UID (the series' for an occurrence written as an instance). */
  uid: number;
  uidHost: string;
  /** The RECURRENCE-ID line of an instance. */
  recurrenceId?: string;
  /** `YYYYMMDDTHHMMSSZ` of the last modification: DTSTAMP and LAST-MODIFIED. */
  modified: string;
  revision: number;
  title: string;
  /** DTSTART/DTEND lines (and a series' rule lines). */
  dates: string;
  url: string;
  /** Only the summary, dates and URL (password-protected, caller without the password). */
  reduced: boolean;
  /** `YYYYMMDDTHHMMSSZ` of publication: CREATED. */
  created: string;
  /** HTML of the description, else of the excerpt. */
  description: string;
  /** The venue's LOCATION (and GEO) lines (venueLines). */
  location?: string;
  /** The first organizer's ORGANIZER line (organizerLine). */
  organizer?: string;
  categories: Array<Pick<TermRecord, 'name'>>;
  status: EventRecord['status'];
}

/** The VEVENT's lines as a string. */
export function veventText(parts: VeventParts): string {
  const text = new LineText();
  writeVevent(parts, text);
  return text.text;
}

/** The VEVENT's lines into `out`. */
export function writeVevent(parts: VeventParts, out: LineSink): void {
  out.lines('BEGIN:VEVENT\r\n');
  out.line('UID', `${parts.uid}@${parts.uidHost}`);
  if (parts.recurrenceId) out.lines(parts.recurrenceId);
  // The modification time, not the time of writing: the same data gives the same bytes (ETag).
  out.line('DTSTAMP', parts.modified);
  out.line('SEQUENCE', String(parts.revision));
  out.line('SUMMARY', escapeText(parts.title));
  out.lines(parts.dates);
  out.line('URL', uriValue(parts.url));
  if (parts.reduced) {
    out.lines(REDUCED_END);
    return;
  }
  out.line('CREATED', parts.created);
  out.line('LAST-MODIFIED', parts.modified);
  const description = htmlToText(parts.description);
  if (description) out.line('DESCRIPTION', escapeText(description));
  if (parts.location) out.lines(parts.location);
  if (parts.organizer) out.lines(parts.organizer);
  if (parts.categories.length > 0) {
    out.line('CATEGORIES', parts.categories.map((category) => escapeText(category.name)).join(','));
  }
  out.lines(STATUS_LINES[parts.status]);
}

/** A blanked event is still a public one (docs/api.md §14): only its texts are withheld. */
const REDUCED_END = `${contentLine('CLASS', 'PUBLIC')}END:VEVENT\r\n`;

/** STATUS and CLASS per event status, and the VEVENT's end. */
const STATUS_LINES = Object.fromEntries(
  POST_STATUSES.map((status) => [
    status,
    contentLine('STATUS', statusOf(status)) +
      contentLine('CLASS', status === 'private' ? 'PRIVATE' : 'PUBLIC') +
      'END:VEVENT\r\n',
  ]),
) as Record<EventRecord['status'], string>;

/**
 * DTSTART/DTEND: all-day as DATE with the exclusive next day as end; in an
 * IANA zone as local time with TZID; otherwise (UTC, UTC±H, a zone the
 * library does not describe exactly at that time) as UTC with `Z`.
 */
function dateLines(
  record: Pick<
    VeventRecord,
    'all_day' | 'timezone' | 'start_date' | 'end_date' | 'utc_start_date' | 'utc_end_date'
  >,
): string {
  if (record.all_day === true) {
    const end = DateTime.fromISO(record.end_date.slice(0, 10), { zone: 'utc' }).plus({ days: 1 });
    return (
      contentLine('DTSTART', dateValue(record.start_date), { VALUE: 'DATE' }) +
      contentLine('DTEND', end.toFormat('yyyyMMdd'), { VALUE: 'DATE' })
    );
  }
  const tzid = tzidOf(record);
  const block = tzid ? zoneBlock(tzid) : null;
  if (
    tzid &&
    block &&
    block.covers(record.start_date, offsetSeconds(record.start_date, record.utc_start_date)) &&
    block.covers(record.end_date, offsetSeconds(record.end_date, record.utc_end_date))
  ) {
    const params: Params = { TZID: tzid };
    return (
      contentLine('DTSTART', dateTimeValue(record.start_date), params) +
      contentLine('DTEND', dateTimeValue(record.end_date), params)
    );
  }
  return (
    contentLine('DTSTART', utcStamp(record.utc_start_date)) +
    contentLine('DTEND', utcStamp(record.utc_end_date))
  );
}

/** Times a feed row's dates are written from with integers: four-digit years, with a day to spare. */
const FIRST_ROW_SECONDS = MIN_DIGIT_SECONDS + 2 * 86_400;
const LAST_ROW_SECONDS = MAX_DIGIT_SECONDS - 2 * 86_400;

/**
 * DTSTART/DTEND of a feed row from its Unix seconds: what dateLines() writes
 * from the record's wire dates, without making and reading those strings.
 * `allDay` is the record's (null when blanked).
 */
export function rowDateLines(
  row: { startAt: number; endAt: number; timezone: string },
  zone: Zone,
  allDay: boolean | null,
): string {
  const { startAt, endAt, timezone } = row;
  if (!(startAt >= FIRST_ROW_SECONDS && endAt >= FIRST_ROW_SECONDS)) return wireDateLines();
  if (!(startAt <= LAST_ROW_SECONDS && endAt <= LAST_ROW_SECONDS)) return wireDateLines();
  // Local wall clock as seconds, as zoneWire() computes it.
  const startOffset = Math.round(zoneOffset(zone, startAt) * 60);
  const endOffset = Math.round(zoneOffset(zone, endAt) * 60);
  const localStart = Math.floor(startAt) + startOffset;
  const localEnd = Math.floor(endAt) + endOffset;
  if (allDay === true) {
    return (
      headedLine(DATE_HEADS.start, dayDigits(Math.floor(localStart / 86_400))) +
      headedLine(DATE_HEADS.end, dayDigits(Math.floor(localEnd / 86_400) + 1))
    );
  }
  const tzid = tzidOf({ timezone, all_day: allDay });
  const block = tzid ? zoneBlock(tzid) : null;
  if (
    tzid &&
    block &&
    block.coversLocal(localStart, startOffset) &&
    block.coversLocal(localEnd, endOffset)
  ) {
    const heads = tzidHeads(tzid);
    return (
      headedLine(heads.start, dateTimeDigits(localStart)) +
      headedLine(heads.end, dateTimeDigits(localEnd))
    );
  }
  return (
    headedLine('DTSTART', `${dateTimeDigits(startAt)}Z`) +
    headedLine('DTEND', `${dateTimeDigits(endAt)}Z`)
  );

  /** Outside four-digit years: from the wire dates, as the record path writes them. */
  function wireDateLines(): string {
    return dateLines({
      all_day: allDay,
      timezone,
      start_date: zoneWire(startAt, zone),
      end_date: zoneWire(endAt, zone),
      utc_start_date: utcWire(startAt),
      utc_end_date: utcWire(endAt),
    });
  }
}

const DATE_HEADS = {
  start: lineHead('DTSTART', { VALUE: 'DATE' }),
  end: lineHead('DTEND', { VALUE: 'DATE' }),
};

/** `DTSTART;TZID=…` and `DTEND;TZID=…` per zone. */
const tzidHeadsOf = new Map<string, { start: string; end: string }>();

function tzidHeads(tzid: string): { start: string; end: string } {
  let heads = tzidHeadsOf.get(tzid);
  if (!heads) {
    heads = {
      start: lineHead('DTSTART', { TZID: tzid }),
      end: lineHead('DTEND', { TZID: tzid }),
    };
    tzidHeadsOf.set(tzid, heads);
  }
  return heads;
}

/** Local minus UTC, in seconds, of two wire times. */
function offsetSeconds(local: string, utc: string): number {
  return (
    (Date.parse(`${local.replace(' ', 'T')}Z`) - Date.parse(`${utc.replace(' ', 'T')}Z`)) / 1000
  );
}

/*
 * A venue's and an organizer's lines depend only on their record (records are
 * not changed once mapped): written once per record, not once per event.
 */
// Not write state: memos of immutable mapped records' iCalendar lines.
const venueText = new WeakMap<VenueRecord, string>();
const organizerText = new WeakMap<OrganizerRecord, string>();

/** A venue's LOCATION (and GEO) lines. */
export function venueLines(venue: VenueRecord): string {
  let text = venueText.get(venue);
  if (text === undefined) {
    text = writeVenueLines(venue);
    venueText.set(venue, text);
  }
  return text;
}

/** An organizer's ORGANIZER line. */
export function organizerLine(organizer: OrganizerRecord): string {
  let text = organizerText.get(organizer);
  if (text === undefined) {
    text = writeOrganizerLine(organizer);
    organizerText.set(organizer, text);
  }
  return text;
}

/** LOCATION: the name and address on one line; GEO when the venue has coordinates. */
function writeVenueLines(venue: VenueRecord): string {
  const region = venue.stateprovince || venue.state || venue.province;
  const parts = [venue.venue, venue.address, venue.city, region, venue.zip, venue.country].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  let text = contentLine('LOCATION', escapeText(parts.join(', ')));
  if (venue.geo_lat !== null && venue.geo_lng !== null) {
    text += contentLine('GEO', `${venue.geo_lat};${venue.geo_lng}`);
  }
  return text;
}

/**
 * ORGANIZER (a CAL-ADDRESS): `mailto:` when the organizer has an e-mail,
 * else its website or permalink. RFC 5545 allows one per VEVENT: the first.
 */
function writeOrganizerLine(organizer: OrganizerRecord): string {
  const address = organizer.email
    ? `mailto:${organizer.email}`
    : organizer.website || organizer.url;
  return contentLine('ORGANIZER', uriValue(address), { CN: organizer.organizer });
}

function statusOf(status: EventRecord['status']): string {
  if (status === 'draft' || status === 'pending') return 'TENTATIVE';
  return status === 'trash' ? 'CANCELLED' : 'CONFIRMED';
}

/**
 * LAST-MODIFIED (and DTSTAMP): the later of the event's own modification and
 * the last change of a venue or organizer it links, so it moves when LOCATION
 * or ORGANIZER does.
 */
function lastModified(modifiedUtc: string, linkedModifiedAt = 0): string {
  const own = utcStamp(modifiedUtc);
  if (linkedModifiedAt <= 0) return own;
  const linked = `${dateTimeDigits(linkedModifiedAt)}Z`;
  return linked > own ? linked : own;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC → `YYYYMMDDTHHMMSSZ`. */
function utcStamp(wire: string): string {
  return `${dateTimeValue(wire)}Z`;
}

// eslint-disable-next-line no-control-regex -- the characters uriValue encodes
const URI_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f\s"<>\\^`{|}]/;

/** URI values are not escaped (§3.3.13); characters a URI cannot hold are percent-encoded. */
function uriValue(uri: string): string {
  if (!URI_UNSAFE.test(uri)) return uri;
  return uri
    .replace(CONTROL_CHARS, (c) => encodeURIComponent(c))
    .replace(/[\s"<>\\^`{|}]/g, (c) => encodeURIComponent(c));
}
