import { DateTime } from 'luxon';
import type { Test } from 'supertest';
import { apiUrl, globalIdOf, WIRE_DATE } from './content';
import { API, TestApp, UserName, USERS } from './test-app';

/*
 * Helpers of the event suites: requests, and the event record the API
 * answers, with generated values matched loosely.
 */

/** `{year, month, …}` of a wire date. */
export function details(wire: string) {
  const [year, month, day, hour, minutes, seconds] = wire.split(/[- :]/);
  return { year, month, day, hour, minutes, seconds };
}

export const EMPTY_COST = {
  currency_symbol: '',
  currency_code: '',
  currency_position: '',
  values: [],
};

export interface ExpectedEvent {
  title: string;
  slug: string;
  start_date: string;
  end_date: string;
  /** Default: start_date (UTC events). */
  utc_start_date?: string;
  utc_end_date?: string;
  [field: string]: unknown;
}

/** The whole event record, in the documented order. */
export function eventRecord(id: number, expected: ExpectedEvent): Record<string, unknown> {
  const {
    title,
    slug,
    start_date,
    end_date,
    utc_start_date = start_date,
    utc_end_date = end_date,
    ...fields
  } = expected;
  const language = (fields.language as string | undefined) ?? 'nl';
  const url = `http://calendar.test/${language}/event/${slug}/`;
  return {
    id,
    global_id: globalIdOf('event', id),
    global_id_lineage: [globalIdOf('event', id)],
    author: String(USERS.author.id),
    status: 'publish',
    date: WIRE_DATE,
    date_utc: WIRE_DATE,
    modified: WIRE_DATE,
    modified_utc: WIRE_DATE,
    url,
    rest_url: apiUrl(`/events/${id}`),
    ical_url: apiUrl(`/events/${id}.ics`),
    title,
    description: '',
    excerpt: '',
    slug,
    image: false,
    all_day: false,
    start_date,
    start_date_details: details(start_date),
    end_date,
    end_date_details: details(end_date),
    utc_start_date,
    utc_start_date_details: details(utc_start_date),
    utc_end_date,
    utc_end_date_details: details(utc_end_date),
    timezone: 'UTC',
    timezone_abbr: 'UTC',
    cost: '',
    cost_details: EMPTY_COST,
    website: url,
    show_map: true,
    show_map_link: true,
    hide_from_listings: false,
    sticky: false,
    featured: false,
    ticketed: false,
    post_parent: 0,
    series_id: null,
    recurrence: null,
    password_protected: false,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    language,
    languages: [language],
    external_id: null,
    ...fields,
  };
}

/** An event's start and end, wall-clock and UTC. */
export function datesOf(record: Record<string, unknown>) {
  const { start_date, end_date, utc_start_date, utc_end_date } = record;
  return { start_date, end_date, utc_start_date, utc_end_date };
}

/** Request helpers bound to one test app. */
export function eventRequests(t: TestApp) {
  const as = (req: Test, user?: UserName) => (user ? req.set('Authorization', t.auth[user]) : req);
  return {
    create: (body: object, user: UserName = 'author', query = '') =>
      as(t.http().post(`${API}/events${query}`), user).send(body),
    update: (id: number | string, body: object, user: UserName = 'author', query = '') =>
      as(t.http().patch(`${API}/events/${id}${query}`), user).send(body),
    get: (path: string, user?: UserName) => as(t.http().get(`${API}${path}`), user),
    remove: (path: string, user: UserName = 'author') => as(t.http().delete(`${API}${path}`), user),
    createVenue: (body: object, user: UserName = 'author') =>
      as(t.http().post(`${API}/venues`), user).send(body),
    createOrganizer: (body: object, user: UserName = 'author') =>
      as(t.http().post(`${API}/organizers`), user).send(body),
  };
}

/** A wire date `days` from today (UTC) at `time`. */
export function dayAt(days: number, time = '12:00:00'): string {
  const date = DateTime.utc().plus({ days }).toFormat('yyyy-MM-dd');
  return `${date} ${time}`;
}
