import { DateTime } from 'luxon';
import type { EventRecord } from '../events/event.mapper';
import type { OrganizerRecord } from '../organizers/organizer.mapper';
import type { VenueRecord } from '../venues/venue.mapper';
import {
  CONTROL_CHARS,
  contentLine,
  dateTimeValue,
  dateValue,
  escapeText,
  htmlToText,
  type Params,
} from './ical-text';
import { zoneBlock } from './ical-zones';

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
  /** Grows with every write of the event: SEQUENCE. */
  revision: number;
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
 * and URL beside the identity lines every VEVENT must have. `zones` collects
 * the TZIDs used, for the feed's VTIMEZONEs.
 */
export function vevent(event: FeedEvent): string {
  const { record } = event;
  const modified = utcStamp(record.modified_utc);
  let text = 'BEGIN:VEVENT\r\n';
  text += contentLine('UID', `${event.instanceOf?.seriesId ?? record.id}@${event.uidHost}`);
  if (event.instanceOf) text += event.instanceOf.recurrenceId;
  // The modification time, not the time of writing: the same data gives the same bytes (ETag).
  text += contentLine('DTSTAMP', modified);
  text += contentLine('SEQUENCE', String(event.revision));
  text += contentLine('SUMMARY', escapeText(record.title));
  text += event.series ? event.series.dates + event.series.rules : dateLines(record);
  text += contentLine('URL', uriValue(record.url));
  if (record.password_protected && record.all_day === null) {
    text += contentLine('CLASS', 'CONFIDENTIAL');
    return `${text}END:VEVENT\r\n`;
  }
  text += contentLine('CREATED', utcStamp(record.date_utc));
  text += contentLine('LAST-MODIFIED', modified);
  const description = htmlToText(record.description || record.excerpt);
  if (description) text += contentLine('DESCRIPTION', escapeText(description));
  if (!Array.isArray(record.venue)) text += venueLines(record.venue);
  const [organizer] = record.organizer;
  if (organizer) text += organizerLine(organizer);
  if (record.categories.length > 0) {
    text += contentLine(
      'CATEGORIES',
      record.categories.map((category) => escapeText(category.name)).join(','),
    );
  }
  text += contentLine('STATUS', statusOf(record.status));
  text += contentLine('CLASS', record.status === 'private' ? 'PRIVATE' : 'PUBLIC');
  return `${text}END:VEVENT\r\n`;
}

/**
 * DTSTART/DTEND: all-day as DATE with the exclusive next day as end; in an
 * IANA zone as local time with TZID; otherwise (UTC, UTC±H, a zone the
 * library does not describe exactly at that time) as UTC with `Z`.
 */
function dateLines(record: VeventRecord): string {
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

/** Local minus UTC, in seconds, of two wire times. */
function offsetSeconds(local: string, utc: string): number {
  return (
    (Date.parse(`${local.replace(' ', 'T')}Z`) - Date.parse(`${utc.replace(' ', 'T')}Z`)) / 1000
  );
}

/** LOCATION: the name and address on one line; GEO when the venue has coordinates. */
function venueLines(venue: VenueRecord): string {
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
function organizerLine(organizer: OrganizerRecord): string {
  const address = organizer.email
    ? `mailto:${organizer.email}`
    : organizer.website || organizer.url;
  return contentLine('ORGANIZER', uriValue(address), { CN: organizer.organizer });
}

function statusOf(status: EventRecord['status']): string {
  if (status === 'draft' || status === 'pending') return 'TENTATIVE';
  return status === 'trash' ? 'CANCELLED' : 'CONFIRMED';
}

/** `YYYY-MM-DD HH:MM:SS` in UTC → `YYYYMMDDTHHMMSSZ`. */
function utcStamp(wire: string): string {
  return `${dateTimeValue(wire)}Z`;
}

/** URI values are not escaped (§3.3.13); characters a URI cannot hold are percent-encoded. */
function uriValue(uri: string): string {
  return uri
    .replace(CONTROL_CHARS, (c) => encodeURIComponent(c))
    .replace(/[\s"<>\\^`{|}]/g, (c) => encodeURIComponent(c));
}
