import { hash as digest } from 'node:crypto';
import type ICALModule from 'ical.js';
import type { ImportItem, ImportOrganizer, ImportVenue, SkipReason } from './import-item';
import { type DateContext, DateProblem, eventDates, readProperty } from './vevent-dates';
import { RecurrenceProblem, recurrenceLines } from './vevent-recurrence';

/*
 * One parsed VEVENT as an import item (docs/api.md "Imports (draft: parsing
 * rules)"). ical.js has already unfolded the lines and unescaped the texts.
 */

/** Why a VEVENT gives no item. */
export class SkipProblem extends Error {
  constructor(
    readonly reason: SkipReason,
    detail: string,
  ) {
    super(detail.slice(0, 200));
  }
}

const MAX_UID = 255;
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 100_000;
const MAX_NAME = 200;
/**
 * Category names kept: one more than an event takes (§6, 100), so the
 * writer skips an item naming more (`rejected`) instead of cutting its list.
 */
const MAX_CATEGORIES = 101;
const MAX_URL = 2000;
const MAX_SEQUENCE = 2 ** 31 - 1;

/** The item of a VEVENT component; SkipProblem when it cannot be one. */
export function veventItem(vevent: ICALModule.Component, context: DateContext): ImportItem {
  const uid = text(vevent, 'uid').trim();
  if (uid === '') throw new SkipProblem('missing_uid', 'no UID');
  if (uid.length > MAX_UID)
    throw new SkipProblem('property_too_long', 'UID is over 255 characters');
  try {
    const title = cut(text(vevent, 'summary').trim(), MAX_TITLE);
    const recurrenceId = readProperty(vevent, 'recurrence-id', context);
    const dates = eventDates(vevent, context);
    if (title === '') throw new SkipProblem('missing_summary', 'no SUMMARY');
    const recurrence = recurrenceId ? [] : recurrenceLines(vevent, dates.start.timezone, context);
    const item: Omit<ImportItem, 'hash'> = {
      uid,
      recurrenceId: recurrenceId
        ? { local: recurrenceId.local, timezone: recurrenceId.timezone }
        : null,
      title,
      description: cut(text(vevent, 'description'), MAX_DESCRIPTION),
      allDay: dates.allDay,
      start: dates.start,
      end: dates.end,
      recurrence,
      venue: venueOf(vevent),
      organizer: organizerOf(vevent),
      categories: categoriesOf(vevent),
      url: urlOf(vevent),
      status: statusOf(text(vevent, 'status')),
      visibility: ['PRIVATE', 'CONFIDENTIAL'].includes(text(vevent, 'class').trim().toUpperCase())
        ? 'private'
        : 'public',
      sequence: sequenceOf(vevent),
      lastModified: lastModifiedOf(vevent, context),
    };
    return { ...item, hash: hashOf(item) };
  } catch (error) {
    if (error instanceof DateProblem) throw new SkipProblem(error.reason, error.message);
    if (error instanceof RecurrenceProblem) {
      throw new SkipProblem('unsupported_recurrence', error.message);
    }
    throw error;
  }
}

/** SHA-256 (base64url) of what the writer writes: the fields in their fixed order, without SEQUENCE and LAST-MODIFIED. */
export function hashOf(item: Omit<ImportItem, 'hash'> & { hash?: string }): string {
  const { sequence: _sequence, lastModified: _lastModified, hash: _hash, ...content } = item;
  return digest('sha256', JSON.stringify(content), 'base64url');
}

/** A text property's first value ('' when absent or not text). */
function text(vevent: ICALModule.Component, name: string): string {
  const value = vevent.getFirstPropertyValue(name) as unknown;
  return typeof value === 'string' ? value : '';
}

/** At most `max` characters, never cutting a surrogate pair. */
function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = /[\uD800-\uDBFF]/.test(value[max - 1]) ? max - 1 : max;
  return value.slice(0, end);
}

function key(prefix: string, value: string): string {
  return `${prefix}-${digest('sha256', value, 'base64url').slice(0, 22)}`;
}

/** Lower case, whitespace runs as one space: "Main Hall,  Utrecht" and "main hall, utrecht" are one venue. */
function normalized(value: string): string {
  return value.toLowerCase().split(/\s+/).filter(Boolean).join(' ');
}

function venueOf(vevent: ICALModule.Component): ImportVenue | null {
  // Apple writes the venue's name and address on lines of their own.
  const lines = text(vevent, 'location').split('\n');
  const name = cut(
    lines
      .map((line) => line.trim())
      .filter(Boolean)
      .join(', '),
    MAX_NAME,
  );
  const geoValue = vevent.getFirstPropertyValue('geo') as unknown;
  let geo: ImportVenue['geo'] = null;
  if (Array.isArray(geoValue) && geoValue.length === 2) {
    const [lat, lng] = geoValue.map(Number);
    if (Math.abs(lat) <= 90 && Math.abs(lng) <= 180) geo = { lat, lng };
  }
  if (name === '' && !geo) return null;
  const place = geo ? `${geo.lat.toFixed(6)};${geo.lng.toFixed(6)}` : '';
  return {
    key: key('loc', `${normalized(name)}|${place}`),
    name: name || `${geo?.lat}, ${geo?.lng}`,
    geo,
  };
}

function organizerOf(vevent: ICALModule.Component): ImportOrganizer | null {
  const property = vevent.getFirstProperty('organizer');
  if (!property) return null;
  const address = String(property.getFirstValue() ?? '').trim();
  const cnParam = property.getParameter('cn');
  const cn = cut((typeof cnParam === 'string' ? cnParam : '').trim(), MAX_NAME);
  const email = address.toLowerCase().startsWith('mailto:')
    ? address.slice(7).trim().toLowerCase().slice(0, 254) || null
    : null;
  const name = cn || cut(email ?? address, MAX_NAME);
  if (name === '') return null;
  return { key: key('org', email ? `mailto:${email}` : `cn:${normalized(name)}`), name, email };
}

function categoriesOf(vevent: ICALModule.Component): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const property of vevent.getAllProperties('categories')) {
    for (const value of property.getValues() as unknown[]) {
      const name = cut(String(value ?? '').trim(), MAX_NAME);
      const folded = name.toLowerCase();
      if (name === '' || seen.has(folded)) continue;
      if (names.length >= MAX_CATEGORIES) return names;
      seen.add(folded);
      names.push(name);
    }
  }
  return names;
}

function urlOf(vevent: ICALModule.Component): string | null {
  const value = String(vevent.getFirstPropertyValue('url') ?? '').trim();
  if (value === '' || value.length > MAX_URL) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function statusOf(value: string): ImportItem['status'] {
  const status = value.trim().toUpperCase();
  if (status === 'CANCELLED') return 'cancelled';
  return status === 'TENTATIVE' ? 'tentative' : 'confirmed';
}

function sequenceOf(vevent: ICALModule.Component): number {
  const value = Number(vevent.getFirstPropertyValue('sequence'));
  return Number.isInteger(value) && value >= 0 && value <= MAX_SEQUENCE ? value : 0;
}

function lastModifiedOf(vevent: ICALModule.Component, context: DateContext): string | null {
  try {
    const read = readProperty(vevent, 'last-modified', context);
    return read ? new Date(read.seconds * 1000).toISOString().slice(0, 19).replace('T', ' ') : null;
  } catch {
    return null;
  }
}
