import type { Response } from 'supertest';
import { API, TestApp, UserName } from './test-app';

/*
 * Helpers of the changes feed suites (contract §12): one request, and a
 * client that follows the cursor and keeps a copy of every record.
 */

export interface FeedEntry {
  kind: 'event' | 'venue' | 'organizer' | 'category' | 'tag';
  id: number;
  type: 'upsert' | 'delete';
  changed_utc: string;
  record?: Record<string, unknown>;
}

export interface FeedPage {
  changes: FeedEntry[];
  next_cursor: string;
  has_more: boolean;
}

export interface FeedQuery {
  since?: string;
  kinds?: string | string[];
  per_page?: number | string;
  language?: string;
}

export function feedRequest(t: TestApp, query: FeedQuery = {}, auth?: string) {
  const request = t.http().get(`${API}/changes`).query(query);
  return auth ? request.set('Authorization', auth) : request;
}

/** One page, asserted 200. */
export async function feedPage(
  t: TestApp,
  query: FeedQuery = {},
  auth?: string,
): Promise<FeedPage> {
  const response: Response = await feedRequest(t, query, auth);
  if (response.status !== 200) {
    throw new Error(`feed answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body as FeedPage;
}

/**
 * A client of the feed: follows next_cursor until has_more is false and
 * applies every entry to its copy (upsert replaces, delete removes).
 */
export class FeedClient {
  cursor?: string;
  readonly records = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly t: TestApp,
    private readonly auth?: string,
    private readonly query: Omit<FeedQuery, 'since'> = {},
  ) {}

  /** Reads until the feed has nothing more; returns the entries seen, in order. */
  async sync(): Promise<FeedEntry[]> {
    const seen: FeedEntry[] = [];
    for (;;) {
      const page = await feedPage(
        this.t,
        { ...this.query, ...(this.cursor ? { since: this.cursor } : {}) },
        this.auth,
      );
      for (const entry of page.changes) {
        const key = `${entry.kind}:${entry.id}`;
        if (entry.type === 'upsert') this.records.set(key, entry.record as Record<string, unknown>);
        else this.records.delete(key);
      }
      seen.push(...page.changes);
      this.cursor = page.next_cursor;
      if (!page.has_more) return seen;
    }
  }

  keys(kind?: FeedEntry['kind']): string[] {
    return [...this.records.keys()].filter((key) => !kind || key.startsWith(`${kind}:`)).sort();
  }
}

/** A single GET's body as the feed carries it: without json_ld. */
export function withoutJsonLd(body: Record<string, unknown>): Record<string, unknown> {
  const { json_ld: _jsonLd, ...rest } = body;
  return rest;
}

/** A POST (create or update) as `user`, asserted 200 or 201; its body. */
export async function postOk(
  t: TestApp,
  path: string,
  body: object,
  user: UserName = 'editor',
): Promise<{ id: number } & Record<string, unknown>> {
  const response = await t
    .http()
    .post(`${API}${path}`)
    .set('Authorization', t.auth[user])
    .send(body);
  if (response.status !== 201 && response.status !== 200) {
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body as { id: number } & Record<string, unknown>;
}

/** A single GET as `user` (or anonymous), asserted 200: its body as an upsert carries it. */
export async function readAsFeed(
  t: TestApp,
  path: string,
  user?: UserName,
): Promise<Record<string, unknown>> {
  const request = t.http().get(`${API}${path}`);
  const response = await (user ? request.set('Authorization', t.auth[user]) : request).expect(200);
  return withoutJsonLd(response.body as Record<string, unknown>);
}

type Rec = Record<string, unknown> & { id: number };

/**
 * A follower's copy per `kind:id`, keys sorted, as docs/sync.md tells a client
 * to keep it: events with their embedded venue, organizers and terms replaced
 * by the client's own entries of those kinds (terms sorted by name as records
 * show them; copies of records it holds no entry for dropped).
 */
export function followedRecords(client: FeedClient): Record<string, Record<string, unknown>> {
  const own = (kind: string, id: number) => client.records.get(`${kind}:${id}`) as Rec | undefined;
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, record] of client.records) {
    let shown = record;
    if (key.startsWith('event:')) {
      const terms = (list: Rec[], kind: string) =>
        list
          .flatMap((term) => own(kind, term.id) ?? [])
          .sort((a, b) => String(a.name).localeCompare(String(b.name)) || a.id - b.id);
      const venue = record.venue as Rec | [];
      shown = {
        ...record,
        categories: terms(record.categories as Rec[], 'category'),
        tags: terms(record.tags as Rec[], 'tag'),
        venue: Array.isArray(venue) ? venue : (own('venue', venue.id) ?? []),
        organizer: (record.organizer as Rec[]).flatMap((o) => own('organizer', o.id) ?? []),
      };
    }
    out[key] = shown;
  }
  return sortKeys(out);
}

/** Every record of the five full lists for the caller (anonymous without `auth`), per `kind:id`. */
export async function listedRecords(
  t: TestApp,
  auth?: string,
): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  const lists: Array<[string, string, Record<string, string>]> = [
    ['events', 'event', { start_date: '2000-01-01', end_date: '2100-01-01' }],
    ['venues', 'venue', {}],
    ['organizers', 'organizer', {}],
    ['categories', 'category', { hide_empty: 'false' }],
    ['tags', 'tag', { hide_empty: 'false' }],
  ];
  for (const [collection, kind, query] of lists) {
    for (let page = 1; ; page++) {
      const request = t
        .http()
        .get(`${API}/${collection}`)
        .query({ ...query, per_page: 50, page });
      const response = await (auth ? request.set('Authorization', auth) : request);
      if (response.status === 404) break;
      if (response.status !== 200) {
        throw new Error(
          `${collection} answered ${response.status}: ${JSON.stringify(response.body)}`,
        );
      }
      const records = response.body[collection] as Rec[];
      for (const record of records) out[`${kind}:${record.id}`] = record;
      if (records.length < 50) break;
    }
  }
  return sortKeys(out);
}

function sortKeys<T>(object: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)));
}
