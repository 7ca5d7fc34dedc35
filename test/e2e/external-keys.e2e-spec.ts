import { Webhook } from 'standardwebhooks';
import { EventListFilters, eventListQuery } from '../../src/events/event-list-query';
import { feedPage } from './helpers/changes';
import { dayAt } from './helpers/events';
import { API, errorBody, UserName } from './helpers/test-app';
import { Received, sleep, useWebhookApp } from './helpers/webhook-receiver';

/*
 * External keys and upserts by the source's own ID (docs/api.md §17), over
 * HTTP on the jest project's engine: `external_id` on records, PUT
 * …/by-external-id/{source}/{id}, the `external_source` filter (with the
 * events of a series the source owns, and its query plan), keys in
 * event links, and what the changes feed and webhooks see of an upsert.
 */

type Collection = 'events' | 'venues' | 'organizers';
/** A full body per kind and a changed one (the upsert body is a create body). */
const BODIES: Record<Collection, [Record<string, unknown>, Record<string, unknown>]> = {
  events: [
    { title: 'Jazz in het park', start_date: dayAt(3, '20:00:00'), end_date: dayAt(3, '22:00:00') },
    { title: 'Jazz in de tuin', start_date: dayAt(4, '20:00:00'), end_date: dayAt(4, '22:00:00') },
  ],
  venues: [
    { venue: 'Tivoli', city: 'Utrecht' },
    { venue: 'Tivoli Vredenburg', city: 'Utrecht' },
  ],
  organizers: [
    { organizer: 'Stichting Jazz', email: 'info@jazz.test' },
    { organizer: 'Jazz Foundation', email: 'info@jazz.test' },
  ],
};
const TITLE: Record<Collection, string> = {
  events: 'title',
  venues: 'venue',
  organizers: 'organizer',
};

describe('external keys and upserts', () => {
  const ctx = useWebhookApp({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
    WEBHOOK_TIMEOUT_MS: '3000',
  });
  // One Host for every request: supertest listens on a new port per request, and records carry URLs.
  const auth = (user: UserName = 'editor') => ({
    Host: 'api.test',
    Authorization: ctx.t.auth[user],
  });

  const upsert = (
    collection: Collection,
    source: string,
    id: string,
    body: object,
    headers: Record<string, string> = auth(),
  ) =>
    ctx.t
      .http()
      .put(
        `${API}/${collection}/by-external-id/${encodeURIComponent(source)}/${encodeURIComponent(id)}`,
      )
      .set(headers)
      .send(body);
  const create = (collection: Collection, body: object) =>
    ctx.t.http().post(`${API}/${collection}`).set(auth()).send(body);
  const read = async (collection: Collection, id: number) =>
    (await ctx.t.http().get(`${API}/${collection}/${id}`).set(auth()).expect(200)).body as Record<
      string,
      unknown
    >;
  const list = async (collection: Collection, query: Record<string, string>) =>
    (await ctx.t.http().get(`${API}/${collection}`).query(query).set(auth()).expect(200))
      .body as Record<string, unknown> & { total: number };
  const rowCount = async (table: Collection) =>
    Number(
      ((await ctx.t.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`)) as [{ n: unknown }])[0]
        .n,
    );
  /** A GET's record as a write answers it: without JSON-LD, which only a GET shows. */
  const withoutJsonLd = (body: Record<string, unknown>) => {
    const { json_ld: _jsonLd, ...record } = body;
    return record;
  };

  describe.each(Object.keys(BODIES) as Collection[])('%s', (collection) => {
    const [first, second] = BODIES[collection];

    it('creates on a new key (201, Location, ETag) and replaces on a known one (200)', async () => {
      const created = await upsert(collection, 'ticketing', 'A-1', first).expect(201);
      const id = created.body.id as number;
      expect(created.headers.location).toBe(created.body.rest_url);
      expect(created.headers.etag).toMatch(/^"[^"]+"$/);
      expect(created.body).toMatchObject({
        [TITLE[collection]]: first[TITLE[collection]],
        external_id: { source: 'ticketing', id: 'A-1' },
      });
      // The key is the record's last field (after `languages`) in every read.
      const record = await read(collection, id);
      expect(Object.keys(withoutJsonLd(record)).slice(-2)).toEqual(['languages', 'external_id']);
      expect(withoutJsonLd(record)).toEqual(created.body);

      const replaced = await upsert(collection, 'ticketing', 'A-1', second).expect(200);
      expect(replaced.headers.location).toBeUndefined();
      expect(replaced.body).toMatchObject({
        id,
        [TITLE[collection]]: second[TITLE[collection]],
        external_id: { source: 'ticketing', id: 'A-1' },
      });
      expect(await rowCount(collection)).toBe(1);

      // Keys compare exactly: another case or another source is another record.
      const other = await upsert(collection, 'ticketing', 'a-1', first).expect(201);
      const elsewhere = await upsert(collection, 'cms', 'A-1', first).expect(201);
      expect(new Set([id, other.body.id, elsewhere.body.id]).size).toBe(3);
    });

    it('makes one record of 20 concurrent upserts of one new key; each answers 200 or 201', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          upsert(collection, 'race', 'same-key', {
            ...first,
            description: `attempt ${i}`,
          }),
        ),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([...Array(19).fill(200), 201]);
      expect(new Set(answers.map((res) => res.body.id)).size).toBe(1);
      expect(await rowCount(collection)).toBe(1);
      const page = await list(collection, { external_source: 'race' });
      expect(page.total).toBe(1);
    });

    it('refuses a key another record holds on POST, PATCH and PUT by ID: 409, nothing written', async () => {
      const holder = await create(collection, {
        ...first,
        external_id: { source: 'cms', id: '7' },
      }).expect(201);
      expect(holder.body.external_id).toEqual({ source: 'cms', id: '7' });
      const taken = errorBody('rest_external_id_taken', 409);
      expect(
        (
          await create(collection, { ...second, external_id: { source: 'cms', id: '7' } }).expect(
            409,
          )
        ).body,
      ).toEqual(taken);
      const other = await create(collection, second).expect(201);
      expect(other.body.external_id).toBeNull();
      for (const method of ['patch', 'put', 'post'] as const) {
        const agent = ctx.t.http();
        const res = await agent[method](`${API}/${collection}/${other.body.id}`)
          .set(auth())
          .send({ external_id: { source: 'cms', id: '7' } })
          .expect(409);
        expect(res.body).toEqual(taken);
      }
      expect((await read(collection, other.body.id)).external_id).toBeNull();
      expect(await rowCount(collection)).toBe(2);

      // null clears a key; then another record may take it.
      const cleared = await ctx.t
        .http()
        .patch(`${API}/${collection}/${holder.body.id}`)
        .set(auth())
        .send({ external_id: null })
        .expect(200);
      expect(cleared.body.external_id).toBeNull();
      const moved = await ctx.t
        .http()
        .patch(`${API}/${collection}/${other.body.id}`)
        .set(auth())
        .send({ external_id: { source: 'cms', id: '7' } })
        .expect(200);
      expect(moved.body.external_id).toEqual({ source: 'cms', id: '7' });
    });

    it('filters the list by external_source', async () => {
      await upsert(collection, 'cms', '1', first).expect(201);
      await upsert(collection, 'cms', '2', second).expect(201);
      await upsert(collection, 'ticketing', '1', first).expect(201);
      await create(collection, second).expect(201);
      const cms = await list(collection, { external_source: 'cms' });
      const items = cms[collection] as Array<{ external_id: { id: string } }>;
      expect(items.map((item) => item.external_id.id).sort()).toEqual(['1', '2']);
      expect(cms.total).toBe(2);
      expect((await list(collection, { external_source: 'ticketing' })).total).toBe(1);
      expect((await list(collection, { external_source: 'none' })).total).toBe(0);
      const bad = await ctx.t
        .http()
        .get(`${API}/${collection}?external_source=Bad%20Source`)
        .expect(400);
      expect(bad.body).toEqual(
        errorBody('rest_invalid_param', 400, { external_source: expect.any(String) }),
      );
    });

    it('holds If-Match on an upsert: 412 on a stale tag or a new key, 200 on the current tag', async () => {
      const created = await upsert(collection, 'cms', 'm', first).expect(201);
      const stale = created.headers.etag as string;
      await upsert(collection, 'cms', 'm', second, { ...auth(), 'If-Match': stale }).expect(200);
      const refused = await upsert(collection, 'cms', 'm', first, {
        ...auth(),
        'If-Match': stale,
      }).expect(412);
      expect(refused.body).toEqual(errorBody('rest_precondition_failed', 412));
      const current = await ctx.t
        .http()
        .get(`${API}/${collection}/${created.body.id}`)
        .set(auth())
        .expect(200);
      await upsert(collection, 'cms', 'm', first, {
        ...auth(),
        'If-Match': current.headers.etag as string,
      }).expect(200);
      // No record has the key: If-Match cannot hold, and nothing is created.
      for (const tag of ['*', stale]) {
        const res = await upsert(collection, 'cms', 'new', first, {
          ...auth(),
          'If-Match': tag,
        }).expect(412);
        expect(res.body).toEqual(errorBody('rest_precondition_failed', 412));
      }
      expect(await rowCount(collection)).toBe(1);
    });

    it('replays an upsert with the same Idempotency-Key, and refuses the key for another body', async () => {
      const headers = { ...auth(), 'Idempotency-Key': `k-${collection}` };
      const created = await upsert(collection, 'cms', 'idem', first, headers).expect(201);
      const replay = await upsert(collection, 'cms', 'idem', first, headers).expect(201);
      expect(replay.headers['idempotency-replayed']).toBe('true');
      expect([replay.body, replay.headers.location, replay.headers.etag]).toEqual([
        created.body,
        created.headers.location,
        created.headers.etag,
      ]);
      expect(await rowCount(collection)).toBe(1);
      const reused = await upsert(collection, 'cms', 'idem', second, headers).expect(422);
      expect(reused.body).toEqual(errorBody('rest_idempotency_key_reused', 422));
      const update = { ...auth(), 'Idempotency-Key': `u-${collection}` };
      const replaced = await upsert(collection, 'cms', 'idem', second, update).expect(200);
      const again = await upsert(collection, 'cms', 'idem', second, update).expect(200);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(replaced.body);
    });

    it('needs a token and the right to write: 401, 403', async () => {
      const anonymous = await upsert(collection, 'cms', 'x', first, { Host: 'api.test' }).expect(
        401,
      );
      expect(anonymous.body).toEqual(errorBody('rest_forbidden', 401));
      const subscriber = await upsert(collection, 'cms', 'x', first, auth('subscriber')).expect(
        403,
      );
      expect(subscriber.body).toEqual(errorBody('rest_forbidden', 403));
      const mine = await upsert(collection, 'cms', 'x', first, auth('author')).expect(201);
      // Another author's published record: 403, as its update by ID is.
      const others = await upsert(collection, 'cms', 'x', second, auth('otherAuthor')).expect(403);
      expect(others.body).toEqual(errorBody('rest_forbidden', 403));
      expect((await read(collection, mine.body.id))[TITLE[collection]]).toBe(
        first[TITLE[collection]],
      );
    });
  });

  describe('external_source and series', () => {
    const WINDOW = { start_date: '2027-01-01', end_date: '2027-12-31', per_page: '50' };
    const idsOf = (page: Record<string, unknown>) =>
      (page.events as Array<{ id: number }>).map((event) => event.id).sort((a, b) => a - b);

    it('lists the occurrences, detached ones too, of a series the source owns', async () => {
      const series = await upsert('events', 'cms', 'course', {
        title: 'Cursus',
        start_date: '2027-01-05 19:00:00',
        end_date: '2027-01-05 21:00:00',
        timezone: 'Europe/Amsterdam',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      }).expect(201);
      const seriesId = series.body.id as number;
      const once = {
        title: 'Los',
        start_date: '2027-02-01 20:00:00',
        end_date: '2027-02-01 22:00:00',
      };
      const single = await upsert('events', 'cms', 'single', once).expect(201);
      await upsert('events', 'ticketing', 'other', once).expect(201);
      await create('events', once).expect(201);
      const occurrences = idsOf(await list('events', { ...WINDOW, post_parent: String(seriesId) }));
      expect(occurrences).toHaveLength(3);
      // Edited on its own, an occurrence is detached from series edits but stays the source's.
      await ctx.t
        .http()
        .patch(`${API}/events/${occurrences[1]}`)
        .set(auth())
        .send({ title: 'Cursus (andere zaal)' })
        .expect(200);

      const cms = await list('events', { ...WINDOW, external_source: 'cms' });
      expect(idsOf(cms)).toEqual(
        [seriesId, single.body.id as number, ...occurrences].sort((a, b) => a - b),
      );
      expect(cms.total).toBe(5);
      expect((await list('events', { ...WINDOW, external_source: 'ticketing' })).total).toBe(1);
      expect((await list('events', { ...WINDOW, external_source: 'none' })).total).toBe(0);
    });

    it('reads what a source owns through indexes, without scanning the events', async () => {
      const filters: EventListFilters = {
        scope: { statuses: ['publish'] },
        window: {},
        externalSource: 'cms',
      };
      const qb = eventListQuery(ctx.t.dataSource.manager, filters).select('e.id');
      const [sql, params] = qb.getQueryAndParameters();
      const mysql = ctx.t.dataSource.options.type !== 'better-sqlite3';
      const plan = (await ctx.t.dataSource.query(
        `${mysql ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${sql}`,
        params,
      )) as Array<Record<string, unknown>>;
      const steps = mysql
        ? plan.map((row) => `${String(row.table)} ${String(row.type)} ${String(row.key)}`)
        : plan.map((row) => String(row.detail));
      const uses = (alias: string, index: string) =>
        steps.some(
          (step) =>
            step.startsWith(mysql ? `${alias} ` : `SEARCH ${alias} `) && step.includes(index),
        );
      // No read of the events table without an index condition, under any alias.
      const scans = steps.filter((step) =>
        mysql ? /^(e|k|ks|o) (ALL|index) /.test(step) : /^SCAN (e|k|ks|o)\b/.test(step),
      );
      expect({ steps, scans }).toEqual({ steps, scans: [] });
      expect({
        steps,
        keys: uses('k', 'uq_events_external_key'),
        series: uses('ks', 'uq_events_external_key'),
        occurrences: uses('o', 'uq_events_occurrence'),
      }).toEqual({ steps, keys: true, series: true, occurrences: true });
    });
  });

  describe('validation', () => {
    const [event] = BODIES.events;
    const invalid = (name: string) =>
      errorBody('rest_invalid_param', 400, { [name]: expect.any(String) });

    it.each([
      ['a source over 64 characters', { source: 'a'.repeat(65), id: '1' }, 'external_id.source'],
      ['a source with capitals', { source: 'CMS', id: '1' }, 'external_id.source'],
      ['a source with a blank', { source: 'my cms', id: '1' }, 'external_id.source'],
      ['an empty source', { source: '', id: '1' }, 'external_id.source'],
      ['an id over 255 characters', { source: 'cms', id: 'x'.repeat(256) }, 'external_id.id'],
      ['an empty id', { source: 'cms', id: '' }, 'external_id.id'],
      ['an id with a control character', { source: 'cms', id: 'a\nb' }, 'external_id.id'],
      ['an id ending in a space', { source: 'cms', id: 'a ' }, 'external_id.id'],
      ['a number as id', { source: 'cms', id: 7 }, 'external_id.id'],
      ['a text instead of an object', 'cms:1', 'external_id'],
      ['a list instead of an object', [{ source: 'cms', id: '1' }], 'external_id'],
    ])('refuses %s in a body (400 naming it)', async (_label, value, name) => {
      const res = await create('events', { ...event, external_id: value }).expect(400);
      expect(res.body).toEqual(invalid(name));
    });

    it('keeps an id of 255 characters of any script, and a source of 64', async () => {
      const key = { source: `${'s'.repeat(60)}.-_9`, id: `é${'中'.repeat(253)}/` };
      const res = await create('events', { ...event, external_id: key }).expect(201);
      expect(res.body.external_id).toEqual(key);
      // The same key through the path (percent-encoded `/` included) finds it.
      const replaced = await upsert('events', key.source, key.id, event).expect(200);
      expect(replaced.body.id).toBe(res.body.id);
    });

    it('never lets "a " reach the record of "a" (MariaDB compares PAD SPACE): 400, nothing written', async () => {
      const held = await upsert('events', 'cms', 'a', event).expect(201);
      const tag = (await ctx.t.http().get(`${API}/events/${held.body.id}`).set(auth())).headers
        .etag;
      for (const id of ['a ', 'a  ']) {
        const res = await upsert('events', 'cms', id, { ...event, title: 'Overwritten' }).expect(
          400,
        );
        expect(res.body).toEqual(invalid('id'));
      }
      const other = await create('events', { ...event, external_id: { source: 'cms', id: 'a ' } });
      expect(other.status).toBe(400);
      expect(other.body).toEqual(invalid('external_id.id'));
      // A leading space is not padded: " a" is a key of its own on both engines.
      const leading = await upsert('events', 'cms', ' a', event).expect(201);
      expect(leading.body.id).not.toBe(held.body.id);
      expect(leading.body.external_id).toEqual({ source: 'cms', id: ' a' });
      const after = await ctx.t.http().get(`${API}/events/${held.body.id}`).set(auth()).expect(200);
      expect(after.headers.etag).toBe(tag);
      expect(after.body.title).toBe(event.title);
      expect(await rowCount('events')).toBe(2);
    });

    it('names the path part or the body key that is wrong', async () => {
      expect((await upsert('events', 'Bad', '1', event).expect(400)).body).toEqual(
        invalid('source'),
      );
      expect((await upsert('events', 'cms', 'x'.repeat(256), event).expect(400)).body).toEqual(
        invalid('id'),
      );
      const mismatch = await upsert('events', 'cms', '1', {
        ...event,
        external_id: { source: 'cms', id: '2' },
      }).expect(400);
      expect(mismatch.body).toEqual(invalid('external_id'));
      // The same key in the body is fine; a create body is needed.
      await upsert('events', 'cms', '1', {
        ...event,
        external_id: { source: 'cms', id: '1' },
      }).expect(201);
      const missing = await upsert('events', 'cms', '3', { title: 'No dates' }).expect(400);
      expect(missing.body).toEqual(
        errorBody('rest_missing_callback_param', 400, ['start_date', 'end_date']),
      );
      expect(await rowCount('events')).toBe(1);
    });
  });

  describe('links by external key', () => {
    it('links venues and organizers named by their keys, and makes those that are new', async () => {
      const venue = await upsert('venues', 'cms', 'v1', BODIES.venues[0]).expect(201);
      const organizer = await upsert('organizers', 'cms', 'o1', BODIES.organizers[0]).expect(201);
      const event = await upsert('events', 'cms', 'e1', {
        ...BODIES.events[0],
        venue: { external_id: { source: 'cms', id: 'v1' } },
        organizer: [
          { external_id: { source: 'cms', id: 'o1' } },
          { organizer: 'Nieuw', external_id: { source: 'cms', id: 'o2' } },
        ],
      }).expect(201);
      expect(event.body.venue).toMatchObject({ id: venue.body.id });
      const organizers = event.body.organizer as Array<Record<string, unknown>>;
      expect(organizers.map((o) => o.external_id)).toEqual([
        { source: 'cms', id: 'o1' },
        { source: 'cms', id: 'o2' },
      ]);
      expect(organizers[0].id).toBe(organizer.body.id);
      expect(await rowCount('organizers')).toBe(2);
      // Named again by key: the same organizer, not a third.
      await upsert('events', 'cms', 'e2', {
        ...BODIES.events[1],
        organizer: { external_id: { source: 'cms', id: 'o2' } },
      }).expect(201);
      expect(await rowCount('organizers')).toBe(2);

      // A key that names no venue needs the fields of a new one.
      const unknown = await upsert('events', 'cms', 'e3', {
        ...BODIES.events[0],
        venue: { external_id: { source: 'cms', id: 'missing' } },
      }).expect(400);
      expect(unknown.body).toEqual(errorBody('rest_missing_callback_param', 400, ['venue.venue']));
      const badKey = await create('events', {
        ...BODIES.events[0],
        venue: { external_id: { source: 'CMS', id: 'v1' } },
      }).expect(400);
      expect(badKey.body).toEqual(
        errorBody('rest_invalid_param', 400, { 'venue.external_id.source': expect.any(String) }),
      );
      // A trashed venue is not linked by its key.
      await ctx.t.http().delete(`${API}/venues/${venue.body.id}`).set(auth()).expect(200);
      const trashed = await create('events', {
        ...BODIES.events[0],
        venue: { external_id: { source: 'cms', id: 'v1' } },
      }).expect(400);
      expect(trashed.body).toEqual(
        errorBody('rest_invalid_param', 400, { venue: expect.any(String) }),
      );
    });
  });

  describe('feed and webhooks', () => {
    it('announce an upsert as the create or update it was', async () => {
      const hook = await ctx.t
        .http()
        .post(`${API}/webhooks`)
        .set(auth('administrator'))
        .send({ url: ctx.receiver.url('/upserts'), events: ['event.created', 'event.updated'] })
        .expect(201);
      const secret = hook.body.secret as string;
      const start = await feedPage(ctx.t, {}, ctx.t.auth.administrator);
      const created = await upsert('events', 'cms', 'w1', BODIES.events[0]).expect(201);
      await upsert('events', 'cms', 'w1', BODIES.events[1]).expect(200);

      await ctx.receiver.waitFor('/upserts', 2);
      await sleep(300);
      const messages = ctx.receiver.on('/upserts').map((received: Received) =>
        new Webhook(secret).verify(received.body, {
          'webhook-id': String(received.headers['webhook-id']),
          'webhook-timestamp': String(received.headers['webhook-timestamp']),
          'webhook-signature': String(received.headers['webhook-signature']),
        }),
      ) as Array<{ type: string; data: { id: number; record: Record<string, unknown> } }>;
      expect(
        messages.map((m) => [m.type, m.data.id, m.data.record.title, m.data.record.external_id]),
      ).toEqual([
        ['event.created', created.body.id, 'Jazz in het park', { source: 'cms', id: 'w1' }],
        ['event.updated', created.body.id, 'Jazz in de tuin', { source: 'cms', id: 'w1' }],
      ]);

      const feed = await feedPage(ctx.t, { since: start.next_cursor }, ctx.t.auth.administrator);
      expect(
        feed.changes.map((c) => [c.kind, c.id, c.type, c.record?.title, c.record?.external_id]),
      ).toEqual([
        ['event', created.body.id, 'upsert', 'Jazz in de tuin', { source: 'cms', id: 'w1' }],
      ]);
    });
  });
});
