import fc from 'fast-check';
import type { AfterQueryEvent } from 'typeorm';
import { EventBulkWrites } from '../../src/events/event-bulk-writes';
import { feedPage, type FeedEntry } from './helpers/changes';
import { API, errorBody } from './helpers/test-app';
import { useWebhookApp } from './helpers/webhook-receiver';

/*
 * Runs of event creates in an atomic batch (docs/api.md §18) are written as
 * one set (src/batch/bulk-creates.ts): the same creates sent one by one and
 * as an atomic batch give the same answers (but for the moment of creation),
 * the same feed entries and the same webhook deliveries, in the same order;
 * a run with an operation that fails gives that operation's own error answer
 * and changes nothing. PROPERTY_SEED and PROPERTY_RUNS replay or widen a run.
 */

type Body = Record<string, unknown>;
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Body | null;
}
interface World {
  answers: Answer[];
  feed: Array<[string, number, string]>;
  deliveries: unknown[];
}

/** What the fixtures are; the database is reset before each world, so IDs start alike. */
interface Fixtures {
  category: number;
  tag: number;
  venue: number;
  organizer: number;
}

/** Statements of an atomic batch of 100 creates (the batch's own BEGIN and COMMIT included). */
const BOUND_WITHOUT_ENDPOINTS = 30;
/** With one: the webhook sender's own statements after COMMIT may fall in the count. */
const BOUND_WITH_ENDPOINT = 60;

const DATES = (day: number) => ({
  start_date: `2090-05-${String(10 + day).padStart(2, '0')} 20:00:00`,
  end_date: `2090-05-${String(10 + day).padStart(2, '0')} 22:00:00`,
});

const choice = fc.record({
  title: fc.constantFrom('Concert', 'Jazz night', 'Concert'),
  categories: fc.option(fc.subarray(['id', 'Jazz', 'Nieuw'] as const, { minLength: 1 }), {
    nil: undefined,
  }),
  tags: fc.option(fc.subarray(['id', 'rock'] as const, { minLength: 1 }), { nil: undefined }),
  venue: fc.constantFrom(undefined, 'id', 'key', 'inline'),
  organizer: fc.constantFrom(undefined, 'id', 'key'),
  status: fc.constantFrom(undefined, 'publish', 'draft'),
  invalid: fc.constantFrom(
    undefined,
    undefined,
    undefined,
    undefined,
    'dates',
    'venue',
    'category',
  ),
});
type Choice = typeof choice extends fc.Arbitrary<infer C> ? C : never;

/** A create body, once the fixtures' IDs are known. */
function bodyOf(choice: Choice, fixtures: Fixtures, index: number): Body {
  const term = (kind: 'category' | 'tag') => (value: string) =>
    value === 'id' ? fixtures[kind] : value;
  const out: Body = { title: choice.title, ...DATES(index % 9) };
  if (choice.categories) out.categories = choice.categories.map(term('category'));
  if (choice.tags) out.tags = choice.tags.map(term('tag'));
  if (choice.venue === 'id') out.venue = fixtures.venue;
  if (choice.venue === 'key')
    out.venue = { venue: 'Tivoli', external_source: 'cms', external_id: 'v1' };
  if (choice.venue === 'inline') out.venue = { venue: 'Ekko', city: 'Utrecht' };
  if (choice.organizer === 'id') out.organizer = [fixtures.organizer];
  if (choice.organizer === 'key')
    out.organizer = [{ organizer: 'Stichting', external_source: 'cms', external_id: 'o1' }];
  if (choice.status) out.status = choice.status;
  if (choice.invalid === 'dates') out.end_date = '1999-01-01 00:00:00';
  if (choice.invalid === 'venue') out.venue = 999_999;
  if (choice.invalid === 'category') out.categories = [999_999];
  return out;
}

/** Fields a create sets from the clock: they may differ between the two worlds. */
const CLOCK_FIELDS = new Set([
  'date',
  'date_utc',
  'date_gmt',
  'modified',
  'modified_utc',
  'modified_gmt',
]);

function withoutClock(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutClock);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Body)
      .filter(([key]) => !CLOCK_FIELDS.has(key))
      .map(([key, inner]) => [key, withoutClock(inner)]),
  );
}

/** Feed entries in one order, whatever order they were numbered in. */
function sortedEntries<T>(entries: T[]): T[] {
  return [...entries].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** `value` with every record ID (an `id`, a feed entry's, or a number in a URL's path or query) as 0. */
function withoutIds<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/"id":\d+/g, '"id":0')
      .replace(/\/\d+(?=[/"?])/g, '/0')
      .replace(/=\d+/g, '=0')
      // A feed entry: [kind, id, action].
      .replace(/("(?:event|venue|organizer|category|tag)",)\d+/g, '$10'),
  ) as T;
}

describe('batch: runs of creates written as one set', () => {
  const ctx = useWebhookApp({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1h',
  });
  const auth = () => ({ Host: 'api.test', Authorization: ctx.t.auth.editor });
  let statements: string[] | undefined;
  beforeAll(() => {
    ctx.t.dataSource.subscribers.push({
      afterQuery: (event: AfterQueryEvent) => void statements?.push(event.query),
    });
  });

  const post = async (path: string, payload: Body, headers: Record<string, string> = auth()) =>
    (await ctx.t.http().post(`${API}${path}`).set(headers).send(payload).expect(201)).body as Body;

  /** A fresh database with the fixtures and an endpoint subscribed to everything. */
  const fresh = async (subscribe = true): Promise<Fixtures> => {
    await ctx.t.reset();
    if (subscribe)
      await post('/webhooks', { url: ctx.receiver.url('/all'), events: ['*'] }, ctx.admin());
    return {
      category: (await post('/categories', { name: 'Jazz' })).id as number,
      tag: (await post('/tags', { name: 'Blues' })).id as number,
      venue: (await post('/venues', { venue: 'Paradiso', city: 'Amsterdam' })).id as number,
      organizer: (await post('/organizers', { organizer: 'Mojo' })).id as number,
    };
  };
  const sendBatch = (atomic: boolean, operations: object[]) =>
    ctx.t.http().post(`${API}/batch`).set(auth()).send({ atomic, operations });
  const cursor = async () => (await feedPage(ctx.t, {}, ctx.t.auth.administrator)).next_cursor;
  const feedSince = async (since: string) =>
    (await feedPage(ctx.t, { since, per_page: 100 }, ctx.t.auth.administrator)).changes.map(
      (entry: FeedEntry): [string, number, string] => [entry.kind, entry.id, entry.type],
    );
  /** The last delivery's ID: what the fixtures wrote. */
  const deliveryMark = async () =>
    Number(
      (
        (await ctx.t.dataSource.query('SELECT MAX(id) AS id FROM webhook_deliveries')) as [
          { id: unknown },
        ]
      )[0].id ?? 0,
    );
  /** The deliveries' messages written after `mark`, in order. */
  const deliveries = async (mark: number) =>
    (
      (await ctx.t.dataSource.query(
        'SELECT body FROM webhook_deliveries WHERE id > ? ORDER BY id',
        [mark],
      )) as Array<{
        body: string;
      }>
    ).map((row) => withoutClock((JSON.parse(row.body) as { data: unknown }).data));
  const eventCount = async () =>
    Number(
      ((await ctx.t.dataSource.query('SELECT COUNT(*) AS n FROM events')) as [{ n: unknown }])[0].n,
    );

  const oneByOne = async (bodies: Choice[], untilFailure = true): Promise<World> => {
    const fixtures = await fresh();
    const since = await cursor();
    const mark = await deliveryMark();
    const answers: Answer[] = [];
    for (const [index, make] of bodies.entries()) {
      const res = await ctx.t
        .http()
        .post(`${API}/events`)
        .set(auth())
        .send(bodyOf(make, fixtures, index));
      const headers: Record<string, string> = {};
      for (const name of ['etag', 'location'])
        if (res.headers[name]) headers[name] = res.headers[name];
      answers.push({ status: res.status, headers, body: res.body as Body });
      if (untilFailure && res.status >= 400) break;
    }
    return { answers, feed: await feedSince(since), deliveries: await deliveries(mark) };
  };
  const atomic = async (bodies: Choice[], isAtomic = true) => {
    const fixtures = await fresh();
    const since = await cursor();
    const mark = await deliveryMark();
    const events = await eventCount();
    const operations = bodies.map((make, index) => ({
      method: 'POST',
      path: '/events',
      body: bodyOf(make, fixtures, index),
    }));
    const res = await sendBatch(isAtomic, operations).expect(200);
    const answer = res.body as { failed_operation: number | null; results: Answer[] };
    return {
      answer,
      world: {
        answers: answer.results,
        feed: await feedSince(since),
        deliveries: await deliveries(mark),
      },
      eventsAdded: (await eventCount()) - events,
    };
  };
  /** An answer without what the clock sets (its ETag hashes the moment of creation too). */
  const comparable = (answer: Answer) => ({
    status: answer.status,
    headers: { ...answer.headers, ...(answer.headers.etag ? { etag: 'tag' } : {}) },
    body: withoutClock(answer.body),
  });

  it('answers, numbers and announces a batch of creates as the creates one by one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(choice, { minLength: 2, maxLength: 8 }), async (bodies) => {
        const alone = await oneByOne(bodies);
        const createMany = jest.spyOn(EventBulkWrites.prototype, 'createMany');
        let bulkRuns = 0;
        const { answer, world, eventsAdded } = await atomic(bodies).finally(() => {
          bulkRuns = createMany.mock.calls.length;
          createMany.mockRestore();
        });
        // Every batch went through the set-based path (a failing one, then through the routes).
        expect(bulkRuns).toBe(1);
        const failed = alone.answers.findIndex((a) => a.status >= 400);
        if (failed < 0) {
          expect(answer.failed_operation).toBeNull();
          expect(world.answers.map(comparable)).toEqual(alone.answers.map(comparable));
          expect(world.answers.every((a) => /^"[^"]+"$/.test(a.headers.etag))).toBe(true);
          // The same entries; their order as alone only where the run was written as one set: a run
          // through the routes numbers its records in the order first written (docs/api.md §18).
          expect(sortedEntries(world.feed)).toEqual(sortedEntries(alone.feed));
          expect(world.deliveries).toEqual(alone.deliveries);
        } else {
          // The failure as alone after the same operations before it; nothing written.
          expect(answer.failed_operation).toBe(failed);
          expect(answer.results[failed]).toEqual(alone.answers[failed]);
          expect(answer.results.filter((r) => r.status === 424)).toHaveLength(bodies.length - 1);
          expect(world.feed).toEqual([]);
          expect(world.deliveries).toEqual([]);
          expect(eventsAdded).toBe(0);
        }
      }),
      {
        numRuns: Number(process.env.PROPERTY_RUNS ?? 6),
        seed: process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined,
      },
    );
  }, 600_000);

  it('answers, numbers and announces a default batch of creates as the creates one by one, a failing one included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(choice, { minLength: 2, maxLength: 8 }), async (bodies) => {
        const alone = await oneByOne(bodies, false);
        const createMany = jest.spyOn(EventBulkWrites.prototype, 'createMany');
        let bulkRuns = 0;
        const { answer, world, eventsAdded } = await atomic(bodies, false).finally(() => {
          bulkRuns = createMany.mock.calls.length;
          createMany.mockRestore();
        });
        // Written as one set first; when a create fails, each then went through its route.
        const failures = alone.answers.filter((a) => a.status >= 400).length;
        expect(bulkRuns).toBe(1);
        expect(answer.failed_operation).toBeNull();
        // After a fallback MariaDB's AUTO_INCREMENT keeps the IDs the rolled-back set took, so the
        // records made after it may have higher IDs than alone: compared without their IDs then.
        const same = failures === 0 ? <T>(value: T) => value : withoutIds;
        expect(same(world.answers.map(comparable))).toEqual(same(alone.answers.map(comparable)));
        // The same entries; a run written as one set numbers its records in the order first
        // written, as an atomic batch does (docs/api.md §18).
        expect(sortedEntries(same(world.feed))).toEqual(sortedEntries(same(alone.feed)));
        expect(same(world.deliveries)).toEqual(same(alone.deliveries));
        expect(eventsAdded).toBe(bodies.length - failures);
      }),
      {
        numRuns: Number(process.env.PROPERTY_RUNS ?? 6),
        seed: process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined,
      },
    );
  }, 600_000);

  it('answers two published creates naming one category with its count after each, as alone (one set)', async () => {
    const fixtures = await fresh();
    const operations = [0, 1].map((day) => ({
      method: 'POST',
      path: '/events',
      body: { title: `Concert ${day}`, ...DATES(day), categories: [fixtures.category] },
    }));
    for (const atomicBatch of [true, false]) {
      const mark = await deliveryMark();
      const createMany = jest.spyOn(EventBulkWrites.prototype, 'createMany');
      let bulkRuns = 0;
      const res = await Promise.resolve(sendBatch(atomicBatch, operations)).finally(() => {
        bulkRuns = createMany.mock.calls.length;
        createMany.mockRestore();
      });
      expect([res.status, bulkRuns]).toEqual([200, 1]);
      const counts = (res.body.results as Answer[]).map(
        (r) => ((r.body as Body).categories as Array<{ count: number }>)[0].count,
      );
      expect(counts).toEqual(atomicBatch ? [1, 2] : [3, 4]);
      // The messages too: the category's own, then the event's embedded one, per create.
      const messaged = (await deliveries(mark)).map((data) => {
        const { kind, record } = data as { kind: string; record: Body };
        return kind === 'category'
          ? ['category', record.count]
          : ['event', (record.categories as Array<{ count: number }>)[0].count];
      });
      const [first, second] = atomicBatch ? [1, 2] : [3, 4];
      expect(messaged).toEqual([
        ['category', first],
        ['event', first],
        ['category', second],
        ['event', second],
      ]);
    }
  });

  it('answers a run whose last create names a missing venue with that create’s 400, writing nothing', async () => {
    const fixtures = await fresh();
    const since = await cursor();
    const mark = await deliveryMark();
    const operations = [0, 1, 2].map((day) => ({
      method: 'POST',
      path: '/events',
      body: {
        title: `Concert ${day}`,
        ...DATES(day),
        categories: ['Nieuw'],
        venue: day === 2 ? 999_999 : fixtures.venue,
      },
    }));
    // The failing create alone first: it writes nothing.
    const alone = await ctx.t
      .http()
      .post(`${API}/events`)
      .set(auth())
      .send(operations[2].body)
      .expect(400);
    const res = await sendBatch(true, operations).expect(200);
    const rolledBack = {
      status: 424,
      headers: {},
      body: expect.objectContaining({ code: 'rest_batch_rolled_back' }),
    };
    expect(res.body).toEqual({
      atomic: true,
      failed_operation: 2,
      results: [rolledBack, rolledBack, { status: 400, headers: {}, body: alone.body }],
    });
    expect(alone.body).toEqual(errorBody('rest_invalid_param', 400, expect.anything()));
    expect(await feedSince(since)).toEqual([]);
    expect(await deliveries(mark)).toEqual([]);
    expect(await eventCount()).toBe(0);
  });

  /** The statements of an atomic batch of 100 creates of one shape. */
  const statementsOf100 = async (subscribe: boolean) => {
    const fixtures = await fresh(subscribe);
    const operations = Array.from({ length: 100 }, (_, i) => ({
      method: 'POST',
      path: '/events',
      body: {
        title: `Concert ${i}`,
        ...DATES(i % 9),
        categories: [fixtures.category],
        tags: [fixtures.tag],
        venue: fixtures.venue,
      },
    }));
    statements = [];
    const res = await sendBatch(true, operations).expect(200);
    const sent = statements;
    statements = undefined;
    expect(res.body.results.map((r: Answer) => r.status)).toEqual(Array(100).fill(201));
    return sent;
  };

  it('writes a batch of 100 creates in a bounded number of statements', async () => {
    // One by one: 11 to 14 per create. Set-based: a few dozen for the whole run (a term named
    // rather than by ID costs one read per create: EventBulkWrites resolves names per event).
    expect((await statementsOf100(false)).length).toBeLessThanOrEqual(BOUND_WITHOUT_ENDPOINTS);
    // With an endpoint, each create's messages read their term records, as alone.
    expect((await statementsOf100(true)).length).toBeLessThanOrEqual(BOUND_WITH_ENDPOINT);
  });
});
