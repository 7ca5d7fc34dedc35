import type { IncomingMessage } from 'node:http';
import ICAL from 'ical.js';
import type { Response } from 'supertest';
import { API, type TestApp, type UserName } from './test-app';

/*
 * Reading the service's iCalendar answers the way a calendar app does: the
 * raw bytes checked against RFC 5545's line rules, then parsed with ical.js
 * (which throws on any error), each VEVENT reduced to plain values that a
 * test compares with the JSON record of the same event.
 */

/**
 * supertest parser that keeps a calendar's bytes (folding must be checked on
 * octets) and parses JSON error bodies.
 */
export function rawBody(response: unknown, done: (err: Error | null, body: unknown) => void): void {
  // supertest hands the node response to a parser (its typings say superagent's Response).
  const res = response as IncomingMessage;
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => {
    const bytes = Buffer.concat(chunks);
    const json = res.headers['content-type']?.startsWith('application/json');
    done(null, json ? JSON.parse(bytes.toString('utf8')) : bytes);
  });
}

export interface Calendar {
  /** The VCALENDAR's own properties, name → value. */
  props: Record<string, unknown>;
  /** TZID of every VTIMEZONE, in order, with the names of its sub-components. */
  zones: Array<{ tzid: string; parts: string[] }>;
  /** Each VEVENT's properties, name → plain value. */
  events: Array<Record<string, unknown>>;
  uids: string[];
}

/**
 * Checks the raw lines (CRLF only, at most 75 octets each, each line valid
 * UTF-8 on its own, so no fold split a character), parses with ical.js and
 * resolves times with the feed's own VTIMEZONEs.
 */
export function readCalendar(res: Response): Calendar {
  expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
  const bytes = res.body as Buffer;
  expect(Buffer.isBuffer(bytes)).toBe(true);
  const text = bytes.toString('utf8');
  expect(text.endsWith('\r\n')).toBe(true);
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  for (let i = bytes.indexOf('\r\n'); i !== -1; i = bytes.indexOf('\r\n', start)) {
    const line = bytes.subarray(start, i);
    expect(line.length).toBeLessThanOrEqual(75);
    expect(() => decoder.decode(line)).not.toThrow();
    start = i + 2;
  }
  const root = new ICAL.Component(ICAL.parse(text));
  expect(root.name).toBe('vcalendar');
  ICAL.TimezoneService.reset();
  const zones = root.getAllSubcomponents('vtimezone').map((zone) => {
    ICAL.TimezoneService.register(zone);
    return {
      tzid: zone.getFirstPropertyValue('tzid') as string,
      parts: zone.getAllSubcomponents().map((part) => part.name),
    };
  });
  const props = Object.fromEntries(
    root.getAllProperties().map((prop) => [prop.name.toUpperCase(), prop.getFirstValue()]),
  );
  const events = root.getAllSubcomponents('vevent').map(eventFields);
  expect(root.getAllSubcomponents().every((c) => ['vtimezone', 'vevent'].includes(c.name))).toBe(
    true,
  );
  return { props, zones, events, uids: events.map((e) => e.UID as string) };
}

/** A DATE-TIME or DATE as `{tzid?, local, utc}` (wire dates) or `{date}`. */
function timeValue(prop: ICAL.Property): unknown {
  const time = prop.getFirstValue() as ICAL.Time;
  if (time.isDate) return { date: time.toString() };
  const tzid = prop.getParameter('tzid') as string | undefined;
  const utc = new Date(time.toUnixTime() * 1000).toISOString().slice(0, 19).replace('T', ' ');
  return {
    ...(tzid ? { tzid } : {}),
    local: time.toString().replace('T', ' ').replace(/Z$/, ''),
    utc,
    ...(time.zone === ICAL.Timezone.utcTimezone ? { z: true } : {}),
  };
}

const TIMES = new Set(['DTSTART', 'DTEND', 'DTSTAMP', 'CREATED', 'LAST-MODIFIED']);

function eventFields(vevent: ICAL.Component): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const prop of vevent.getAllProperties()) {
    const name = prop.name.toUpperCase();
    expect(fields).not.toHaveProperty(name);
    if (TIMES.has(name)) fields[name] = timeValue(prop);
    else if (name === 'ORGANIZER')
      fields[name] = { CN: prop.getParameter('cn'), value: prop.getFirstValue() };
    else if (name === 'CATEGORIES') fields[name] = prop.getValues();
    else fields[name] = prop.getFirstValue();
  }
  return fields;
}

/** `YYYY-MM-DD HH:MM:SS` (UTC) as the `{local, utc, z}` of a UTC DATE-TIME. */
export function utcTime(wire: string) {
  return { local: wire, utc: wire, z: true };
}

/** One occurrence a calendar app shows: its UID, times (UTC wire, or `{date}` all-day) and summary. */
export interface Shown {
  uid: string;
  start: string;
  end: string;
  summary: string;
}

/**
 * What a calendar app shows from a calendar between two UTC wire times
 * (starts at or after `from`, ends at or before `to`): every VEVENT, series
 * expanded by ical.js with their RECURRENCE-ID exceptions applied. Call
 * after readCalendar (which registers the calendar's VTIMEZONEs).
 */
export function expandCalendar(res: Response, from: string, to: string): Shown[] {
  const root = new ICAL.Component(ICAL.parse((res.body as Buffer).toString('utf8')));
  const components = root.getAllSubcomponents('vevent');
  const exceptions = components.filter((c) => c.hasProperty('recurrence-id'));
  const wire = (time: ICAL.Time) =>
    time.isDate
      ? time.toString()
      : new Date(time.toUnixTime() * 1000).toISOString().slice(0, 19).replace('T', ' ');
  const inWindow = (start: ICAL.Time, end: ICAL.Time) => {
    const [s, e] = start.isDate
      ? [`${start.toString()} 00:00:00`, `${end.toString()} 00:00:00`]
      : [wire(start), wire(end)];
    return s >= from && e <= to;
  };
  const shown: Shown[] = [];
  for (const component of components) {
    if (component.hasProperty('recurrence-id')) continue;
    const uid = component.getFirstPropertyValue('uid') as string;
    const event = new ICAL.Event(component, {
      exceptions: exceptions.filter((c) => c.getFirstPropertyValue('uid') === uid),
    });
    const add = (start: ICAL.Time, end: ICAL.Time, item: ICAL.Event) => {
      if (inWindow(start, end))
        shown.push({ uid, start: wire(start), end: wire(end), summary: item.summary });
    };
    if (!event.isRecurring()) {
      add(event.startDate, event.endDate, event);
      continue;
    }
    const iterator = event.iterator();
    for (let next = iterator.next(); next; next = iterator.next()) {
      const details = event.getOccurrenceDetails(next);
      if (wire(next) > to && wire(details.startDate) > to) break;
      add(details.startDate, details.endDate, details.item);
    }
  }
  return shown.sort((a, b) => a.start.localeCompare(b.start) || a.uid.localeCompare(b.uid));
}

/** A GET of an iCalendar route with its raw body, as `caller` with `headers`. */
export function icsRequest(
  t: TestApp,
  path: string,
  caller?: UserName,
  headers: Record<string, string> = {},
) {
  const req = t.http().get(`${API}${path}`).buffer(true).parse(rawBody);
  if (caller) req.set('Authorization', t.auth[caller]);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req;
}
