import { Webhook } from 'standardwebhooks';
import { Writes } from '../../src/writes/writes.service';
import { beforeCommit } from './helpers/before-commit';
import { EventRecordsService, WRITTEN_EVENT_ROWS } from '../../src/events/event-records.service';
import { EventsService } from '../../src/events/events.service';
import { VenuesService } from '../../src/venues/venues.service';
import { dayAt } from './helpers/events';
import { API } from './helpers/test-app';
import { eventually, Received, sleep, useWebhookApp } from './helpers/webhook-receiver';

/*
 * Change messages (docs/api.md §15): every write announces its records as
 * `<kind>.created|updated|deleted` to the endpoints that subscribe, from the
 * outbox written in the write's transaction. Real receiver on 127.0.0.1,
 * signatures checked with the standardwebhooks library.
 */

interface Message {
  id: string;
  type: string;
  timestamp: string;
  data: { kind: string; id: number; permanent?: boolean; record?: Record<string, any> };
}

type Kind = 'event' | 'venue' | 'organizer' | 'category' | 'tag';
const COLLECTION: Record<Kind, string> = {
  event: 'events',
  venue: 'venues',
  organizer: 'organizers',
  category: 'categories',
  tag: 'tags',
};
/** A create body per kind, and a change in English (a second translation). */
const BODIES: Record<Kind, [Record<string, unknown>, Record<string, unknown>]> = {
  event: [
    { title: 'Jazz in het park', start_date: dayAt(3, '20:00:00'), end_date: dayAt(3, '22:00:00') },
    { title: 'Jazz in the park' },
  ],
  venue: [{ venue: 'Tivoli' }, { venue: 'Tivoli (en)' }],
  organizer: [{ organizer: 'Stichting Jazz' }, { organizer: 'Jazz Foundation' }],
  category: [{ name: 'Muziek' }, { name: 'Music' }],
  tag: [{ name: 'buiten' }, { name: 'outdoors' }],
};
/** Records link to {api} at PUBLIC_SITE_URL (the test app's), as a GET on that host shows them. */
const PUBLIC_HOST = 'calendar.test';

describe('webhook change messages', () => {
  const ctx = useWebhookApp({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
    WEBHOOK_TIMEOUT_MS: '3000',
  });
  const admin = () => ctx.admin();

  async function register(path: string, events: string[] = ['*'], extra = {}) {
    const res = await ctx.t
      .http()
      .post(`${API}/webhooks`)
      .set(admin())
      .send({ url: ctx.receiver.url(path), events, ...extra })
      .expect(201);
    return res.body as { id: number; secret: string };
  }

  /** The messages `path` received, each verified with the endpoint's secret. */
  function messages(path: string, secret: string): Message[] {
    return ctx.receiver.on(path).map((received: Received) => {
      const payload = new Webhook(secret).verify(received.body, {
        'webhook-id': String(received.headers['webhook-id']),
        'webhook-timestamp': String(received.headers['webhook-timestamp']),
        'webhook-signature': String(received.headers['webhook-signature']),
      }) as Omit<Message, 'id'>;
      return { id: String(received.headers['webhook-id']), ...payload };
    });
  }

  async function waitMessages(path: string, secret: string, count: number): Promise<Message[]> {
    await ctx.receiver.waitFor(path, count);
    // Anything more that would come comes now.
    await sleep(300);
    return messages(path, secret);
  }

  const write = (method: 'post' | 'patch' | 'delete', path: string, body?: object) => {
    const req = ctx.t.http()[method](`${API}${path}`).set(admin());
    return body ? req.send(body) : req;
  };

  /** The record as an administrator reads it with context=edit, in the default language. */
  const editRead = async (kind: Kind, id: number) =>
    (
      await ctx.t
        .http()
        .get(`${API}/${COLLECTION[kind]}/${id}?context=edit`)
        .set(admin())
        .set('Host', PUBLIC_HOST)
        .expect(200)
    ).body as Record<string, any>;

  /** Messages in the outbox: each is one delivery row per endpoint. */
  const outboxRows = async () =>
    Number(
      (
        await ctx.t.dataSource.query(
          'SELECT COUNT(DISTINCT webhook_id) AS n FROM webhook_deliveries',
        )
      )[0].n as string,
    );

  describe.each(Object.keys(COLLECTION) as Kind[])('%s', (kind) => {
    const terms = kind === 'category' || kind === 'tag';

    it(`announces ${kind}.created, .updated and .deleted with the record as an administrator edits it`, async () => {
      const { secret } = await register(`/all-${kind}`);
      const [createBody, englishBody] = BODIES[kind];
      const created = await write('post', `/${COLLECTION[kind]}`, createBody).expect(201);
      const id = created.body.id as number;
      const [first] = await waitMessages(`/all-${kind}`, secret, 1);
      expect(first).toEqual({
        id: expect.stringMatching(/^msg_[A-Za-z0-9_-]{22}$/),
        type: `${kind}.created`,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: { kind, id, record: await editRead(kind, id) },
      });
      expect(first.data.record?.translations).toEqual({ nl: expect.any(Object) });

      await write('patch', `/${COLLECTION[kind]}/${id}?language=en`, englishBody).expect(200);
      const afterUpdate = await editRead(kind, id);
      const updated = (await waitMessages(`/all-${kind}`, secret, 2)).find(
        (m) => m.type === `${kind}.updated`,
      );
      expect(updated?.data).toEqual({ kind, id, record: afterUpdate });
      // context=edit in DEFAULT_LANGUAGE (nl), with both languages' texts.
      expect(afterUpdate.language).toBe('nl');
      expect(Object.keys(afterUpdate.translations).sort()).toEqual(['en', 'nl']);

      if (!terms) {
        await write('delete', `/${COLLECTION[kind]}/${id}`).expect(200);
        const trashed = (await waitMessages(`/all-${kind}`, secret, 3)).find(
          (m) => m.type === `${kind}.deleted`,
        );
        expect(trashed?.data).toEqual({
          kind,
          id,
          permanent: false,
          record: expect.objectContaining({
            id,
            status: 'trash',
            translations: afterUpdate.translations,
          }),
        });
      }
      await write('delete', `/${COLLECTION[kind]}/${id}?force=true`).expect(200);
      const all = await waitMessages(`/all-${kind}`, secret, terms ? 3 : 4);
      const gone = all.filter((m) => m.type === `${kind}.deleted` && m.data.permanent);
      expect(gone.map((m) => m.data)).toEqual([{ kind, id, permanent: true }]);
      expect(all.map((m) => m.type).sort()).toEqual(
        [
          `${kind}.created`,
          `${kind}.updated`,
          `${kind}.deleted`,
          ...(terms ? [] : [`${kind}.deleted`]),
        ].sort(),
      );
      // One webhook-id per message.
      expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    });
  });

  it('announces the linked records a write changes: an inline venue, a new category, its count', async () => {
    const { secret } = await register('/linked');
    const created = await write('post', '/events', {
      ...BODIES.event[0],
      status: 'publish',
      venue: { venue: 'Paradiso' },
      categories: ['Pop'],
    }).expect(201);
    const got = await waitMessages('/linked', secret, 3);
    const venueId = created.body.venue.id as number;
    const categoryId = created.body.categories[0].id as number;
    expect(got.map((m) => [m.type, m.data.id]).sort()).toEqual(
      [
        ['category.created', categoryId],
        ['event.created', created.body.id],
        ['venue.created', venueId],
      ].sort(),
    );
    const category = got.find((m) => m.type === 'category.created')?.data.record;
    // Read in the write's transaction: the count already includes the new event.
    expect(category).toEqual(await editRead('category', categoryId));
    expect(category?.count).toBe(1);
  });

  it('concurrent creates in one category announce the counts their answers show', async () => {
    const category = await write('post', '/categories', { name: 'Druk' }).expect(201);
    const { secret } = await register('/counts', ['event.created', 'category.updated']);
    const created = await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        write('post', '/events', {
          ...BODIES.event[0],
          title: `Druk ${i}`,
          status: 'publish',
          categories: [category.body.id],
        }).expect(201),
      ),
    );
    const got = await waitMessages('/counts', secret, 10);
    const answered = new Map(
      created.map((r) => [r.body.id as number, r.body.categories[0].count as number]),
    );
    // Each create counted itself after those committed before it.
    expect([...answered.values()].sort()).toEqual([1, 2, 3, 4, 5]);
    const events = got.filter((m) => m.type === 'event.created');
    expect(events.map((m) => [m.data.id, m.data.record?.categories[0].count]).sort()).toEqual(
      [...answered].sort(),
    );
    const counts = got
      .filter((m) => m.type === 'category.updated')
      .map((m) => m.data.record?.count);
    expect(counts.sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it("renders each record byte for byte as an administrator's context=edit GET shows it, whatever the write's language and host", async () => {
    const { secret } = await register('/exact');
    // In English, on the test server's own host: the messages are in nl on PUBLIC_SITE_URL.
    const created = await write('post', '/events?language=en', {
      ...BODIES.event[0],
      title: 'Jazz in the park',
      status: 'publish',
      venue: { venue: 'Paradiso', city: 'Amsterdam' },
      organizer: [{ organizer: 'Jazz Foundation' }],
      categories: ['Music', 'Outdoors'],
      tags: ['free'],
    }).expect(201);
    const got = await waitMessages('/exact', secret, 6);
    expect(got.map((m) => m.type).sort()).toEqual([
      'category.created',
      'category.created',
      'event.created',
      'organizer.created',
      'tag.created',
      'venue.created',
    ]);
    for (const message of got) {
      const { kind, id, record } = message.data;
      const read = await ctx.t
        .http()
        .get(`${API}/${COLLECTION[kind as Kind]}/${id}?context=edit`)
        .set(admin())
        .set('Host', PUBLIC_HOST)
        .expect(200);
      expect(JSON.stringify(record)).toBe(read.text);
    }
    const event = got.find((m) => m.type === 'event.created')?.data.record;
    expect(event).toEqual(
      expect.objectContaining({
        id: created.body.id,
        language: 'en',
        translations: { en: expect.any(Object) },
        venue: expect.objectContaining({ venue: 'Paradiso' }),
        organizer: [expect.objectContaining({ organizer: 'Jazz Foundation' })],
        categories: [
          expect.objectContaining({ name: 'Music', count: 1 }),
          expect.objectContaining({ name: 'Outdoors', count: 1 }),
        ],
        tags: [expect.objectContaining({ name: 'free', count: 1 })],
      }),
    );
  });

  it("renders an event's record from the rows its write read last, and reads them again once the write changed anything after that read", async () => {
    const { secret } = await register('/kept', ['event.updated']);
    const event = await write('post', '/events', BODIES.event[0]).expect(201);
    const id = event.body.id as number;
    const records = ctx.t.app.get(EventRecordsService);
    const loads = jest.spyOn(records, 'loadRows');
    try {
      // A write through the API: its ETag read's rows make the message's record (one read).
      await write('patch', `/events/${id}`, { title: 'Jazz in het Vondelpark' }).expect(200);
      const [first] = await waitMessages('/kept', secret, 1);
      expect(loads).toHaveBeenCalledTimes(1);
      expect(first.data.record).toEqual(await editRead('event', id));

      // Rows kept, then a change after them in the same transaction: they must not be used.
      loads.mockClear();
      const writes = ctx.t.app.get(Writes);
      await writes.run(undefined, async (unit) => {
        const { manager } = unit;
        unit.keep(WRITTEN_EVENT_ROWS, await records.loadRows(manager, [id]));
        await manager.query('UPDATE event_translations SET title = ? WHERE event_id = ?', [
          'Gewijzigd na het lezen',
          id,
        ]);
        await manager.query('UPDATE events SET revision = revision + 1 WHERE id = ?', [id]);
        unit.record([{ kind: 'event', id, action: 'updated' }]);
      });
      const second = (await waitMessages('/kept', secret, 2))[1];
      expect(second.data.record?.title).toBe('Gewijzigd na het lezen');
      expect(second.data.record).toEqual(await editRead('event', id));
      expect(loads).toHaveBeenCalledTimes(2);

      // Nothing kept outlives its transaction.
      await writes.run(undefined, async (unit) => {
        unit.keep(WRITTEN_EVENT_ROWS, await records.loadRows(unit.manager, [id]));
        expect(unit.keptRows(WRITTEN_EVENT_ROWS)).toBeDefined();
      });
      await writes.run(undefined, async (unit) => {
        expect(unit.keptRows(WRITTEN_EVENT_ROWS)).toBeUndefined();
        await Promise.resolve();
      });
    } finally {
      loads.mockRestore();
    }
  });

  it('sends an endpoint only the types it subscribes to; `*` gets all; disabled endpoints nothing', async () => {
    const venues = await register('/venues-created', ['venue.created']);
    const all = await register('/star', ['*']);
    await register('/off', ['*'], { enabled: false });
    const venue = await write('post', '/venues', { venue: 'Melkweg' }).expect(201);
    await write('patch', `/venues/${venue.body.id}`, { city: 'Amsterdam' }).expect(200);
    await write('post', '/venues', { venue: 'Doornroosje' }).expect(201);
    await write('post', '/tags', { name: 'gratis' }).expect(201);
    const star = await waitMessages('/star', all.secret, 4);
    expect(star.map((m) => m.type).sort()).toEqual([
      'tag.created',
      'venue.created',
      'venue.created',
      'venue.updated',
    ]);
    const only = messages('/venues-created', venues.secret);
    expect(only.map((m) => m.type)).toEqual(['venue.created', 'venue.created']);
    // The same message (same webhook-id) to every endpoint that wants it.
    expect(new Set(only.map((m) => m.id))).toEqual(
      new Set(star.filter((m) => m.type === 'venue.created').map((m) => m.id)),
    );
    expect(ctx.receiver.on('/off')).toEqual([]);
  });

  it('renders nothing when no enabled endpoint subscribes to the write', async () => {
    const events = ctx.t.app.get(EventsService);
    const venues = ctx.t.app.get(VenuesService);
    const eventReads = jest.spyOn(events, 'editRecords');
    const venueReads = jest.spyOn(venues, 'editRecords');
    try {
      await register('/tags-only', ['tag.deleted']);
      await register('/disabled', ['*'], { enabled: false });
      await write('post', '/events', { ...BODIES.event[0], venue: { venue: 'Vera' } }).expect(201);
      expect(eventReads).not.toHaveBeenCalled();
      expect(venueReads).not.toHaveBeenCalled();
      expect(await outboxRows()).toBe(0);

      // Subscribed to venues only: the venue is read, the event is not.
      await register('/venues', ['venue.created']);
      await write('post', '/events', { ...BODIES.event[0], venue: { venue: 'Simplon' } }).expect(
        201,
      );
      expect(eventReads).not.toHaveBeenCalled();
      expect(venueReads).toHaveBeenCalledTimes(1);
      expect(await outboxRows()).toBe(1);
    } finally {
      eventReads.mockRestore();
      venueReads.mockRestore();
    }
  });

  it('a new endpoint gets the messages of every write that starts after its creation', async () => {
    for (let i = 0; i < 5; i++) {
      const { secret } = await register(`/new-${i}`, ['tag.created']);
      const tag = await write('post', '/tags', { name: `tag ${i}` }).expect(201);
      const [message] = await waitMessages(`/new-${i}`, secret, 1);
      expect(message.data.id).toBe(tag.body.id);
    }
  });

  it('a write that fails validation or rolls back sends nothing', async () => {
    const { secret } = await register('/rollback');
    // The inline venue is inserted, then the unknown category fails the write: all rolled back.
    const failed = await write('post', '/events', {
      ...BODIES.event[0],
      venue: { venue: 'Nooit' },
      categories: [999],
    });
    expect(failed.status).toBe(400);
    await write('post', '/venues', { venue: '' }).expect(400);

    // A transaction that fails after its messages were stored (its last step, before COMMIT).
    const venue = await write('post', '/venues', { venue: 'Oosterpoort' }).expect(201);
    await ctx.receiver.waitFor('/rollback', 1);
    const unregister = beforeCommit(ctx.t.app, () => Promise.reject(new Error('fails at commit')));
    try {
      await expect(
        ctx.t.app.get(Writes).run(undefined, async (unit) => {
          await unit.manager.query('UPDATE venues SET modified_at = modified_at + 1 WHERE id = ?', [
            venue.body.id,
          ]);
          unit.record([{ kind: 'venue', id: venue.body.id, action: 'updated' }]);
        }),
      ).rejects.toThrow('fails at commit');
    } finally {
      unregister();
    }
    await write('post', '/tags', { name: 'na de fout' }).expect(201);
    const got = await waitMessages('/rollback', secret, 2);
    expect(got.map((m) => m.type).sort()).toEqual(['tag.created', 'venue.created']);
    expect(await outboxRows()).toBe(2);
  });

  it('does not announce events only because a venue they embed changed its visibility', async () => {
    const venue = await write('post', '/venues', { venue: 'Ekko', status: 'publish' }).expect(201);
    await write('post', '/events', { ...BODIES.event[0], venue: venue.body.id }).expect(201);
    const { secret } = await register('/via');
    await write('patch', `/venues/${venue.body.id}`, { status: 'draft' }).expect(200);
    await write('post', '/tags', { name: 'sentinel' }).expect(201);
    const got = await waitMessages('/via', secret, 2);
    expect(got.map((m) => m.type).sort()).toEqual(['tag.created', 'venue.updated']);
  });

  it('announces every occurrence of a recurring series', async () => {
    const { secret } = await register('/series', ['event.created', 'event.deleted']);
    const series = await write('post', '/events', {
      ...BODIES.event[0],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    }).expect(201);
    const created = await waitMessages('/series', secret, 3);
    expect(created.map((m) => m.type)).toEqual(Array(3).fill('event.created'));
    const ids = created.map((m) => m.data.id).sort((a, b) => a - b);
    expect(ids[0]).toBe(series.body.id);
    for (const m of created) expect(m.data.record?.series_id).toBe(series.body.id);
    await write('delete', `/events/${series.body.id}?force=true`).expect(200);
    const all = await waitMessages('/series', secret, 6);
    expect(
      all
        .filter((m) => m.type === 'event.deleted')
        .map((m) => m.data)
        .sort((a, b) => a.id - b.id),
    ).toEqual(ids.map((id) => ({ kind: 'event', id, permanent: true })));
  });

  it('a series edit after an occurrence was trashed announces no permanent delete of it', async () => {
    const { secret } = await register('/trashed', ['event.deleted', 'event.updated']);
    const series = await write('post', '/events', {
      ...BODIES.event[0],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    }).expect(201);
    const listed = await ctx.t
      .http()
      .get(`${API}/events?post_parent=${series.body.id}&start_date=2000-01-01&end_date=2100-01-01`)
      .expect(200);
    const occurrenceId = (listed.body.events as Array<{ id: number }>)[1].id;
    await write('delete', `/events/${occurrenceId}`).expect(200);
    await write('patch', `/events/${series.body.id}`, { title: 'Jazz elke week' }).expect(200);
    // Trash: the occurrence deleted (not for good) and the series updated (its EXDATE); the
    // edit: the series and the one occurrence that follows it updated.
    const got = await waitMessages('/trashed', secret, 4);
    expect(
      got.filter((m) => m.data.id === occurrenceId).map((m) => [m.type, m.data.permanent]),
    ).toEqual([['event.deleted', false]]);
  });

  it('retries a change message with the same webhook-id', async () => {
    ctx.receiver.plan('/flaky', [{ status: 500 }, { status: 503 }]);
    const { id, secret } = await register('/flaky', ['organizer.created']);
    await write('post', '/organizers', { organizer: 'Herhaling' }).expect(201);
    const got = await ctx.receiver.waitFor('/flaky', 3);
    expect(new Set(got.map((m) => m.headers['webhook-id'])).size).toBe(1);
    expect(messages('/flaky', secret).map((m) => m.type)).toEqual(
      Array(3).fill('organizer.created'),
    );
    const [entry] = await eventually(
      async () =>
        (await ctx.t.http().get(`${API}/webhooks/${id}/deliveries`).set(admin()).expect(200)).body
          .deliveries as Array<Record<string, unknown>>,
      (log) => log[0]?.status === 'delivered',
    );
    expect(entry).toEqual(
      expect.objectContaining({
        type: 'organizer.created',
        message_id: got[0].headers['webhook-id'],
        attempts: 3,
      }),
    );
  });
});
