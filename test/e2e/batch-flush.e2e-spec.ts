import type { AfterQueryEvent } from 'typeorm';
import { feedPage } from './helpers/changes';
import { TokenService } from '../../src/auth/token.service';
import { API } from './helpers/test-app';
import { useWebhookApp } from './helpers/webhook-receiver';

/*
 * What an atomic batch (docs/api.md §18) does once for all its operations:
 * the webhook endpoints read once and the deliveries of every operation
 * written together before COMMIT, with the same messages, in the same order,
 * as the same writes sent one by one; and the batch caller's token verified
 * once, each operation still authorised as that caller.
 */

interface Operation {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

/** The webhook sender's poll for endpoints with work (`WebhookSenderService.claimAndSend`). */
const SENDER_POLL = /^SELECT id, enabled FROM webhook_endpoints$/;

/** The kinds of the three writes (`writes`), in order: events come after the venue. */
const KINDS = ['venue', 'event', 'event'];

interface Delivery {
  type: string;
  data: { kind: string; id: number; record?: Record<string, unknown> };
}

describe('batch: work done once per batch', () => {
  const ctx = useWebhookApp({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
    WEBHOOK_TIMEOUT_MS: '3000',
  });
  const auth = () => ({ Host: 'api.test', Authorization: ctx.t.auth.editor });
  let statements: string[] | undefined;
  beforeAll(() => {
    ctx.t.dataSource.subscribers.push({
      afterQuery: (event: AfterQueryEvent) => void statements?.push(event.query),
    });
  });

  const subscribe = () =>
    ctx.t
      .http()
      .post(`${API}/webhooks`)
      .set(ctx.admin())
      .send({
        url: ctx.receiver.url('/once'),
        events: ['event.created', 'venue.created', 'venue.updated', 'category.updated'],
      })
      .expect(201);
  /** Three writes: a venue, an event at it with a category, a second event with the category. */
  const writes = async (): Promise<Operation[]> => {
    const category = await ctx.t
      .http()
      .post(`${API}/categories`)
      .set(auth())
      .send({ name: 'Jazz' })
      .expect(201);
    const dates = { start_date: '2090-05-01 20:00:00', end_date: '2090-05-01 22:00:00' };
    return [
      { method: 'POST', path: '/venues', body: { venue: 'Tivoli', city: 'Utrecht' } },
      {
        method: 'PUT',
        path: '/events/by-external-id/cms/a',
        body: { title: 'Concert A', ...dates, categories: [category.body.id] },
      },
      {
        method: 'POST',
        path: '/events',
        body: { title: 'Concert B', ...dates, categories: [category.body.id] },
      },
    ];
  };
  const deliveries = async (): Promise<Delivery[]> =>
    (
      (await ctx.t.dataSource.query('SELECT body FROM webhook_deliveries ORDER BY id')) as Array<{
        body: string;
      }>
    ).map((row) => JSON.parse(row.body) as Delivery);
  /** A delivery with the IDs the writes gave as their places among them, and the record's title or name. */
  const shape = (delivery: Delivery, ids: number[]) => [
    delivery.type,
    delivery.data.kind,
    delivery.data.kind === 'category' ? 'category' : ids.indexOf(delivery.data.id, KINDS.indexOf(delivery.data.kind)),
    delivery.data.record?.title ?? delivery.data.record?.venue ?? delivery.data.record?.name,
    (delivery.data.record?.categories as Array<{ name: string }> | undefined)?.map((c) => c.name),
  ];

  it('writes the same deliveries as the writes sent one by one, read and inserted once', async () => {
    await subscribe();
    const operations = await writes();
    const start = await feedPage(ctx.t, {}, ctx.t.auth.administrator);
    const alone: number[] = [];
    for (const operation of operations) {
      const method = operation.method.toLowerCase() as 'post' | 'put';
      const res = await ctx.t.http()[method](`${API}${operation.path}`).set(auth()).send(operation.body);
      expect(res.status).toBe(201);
      alone.push(res.body.id as number);
    }
    const aloneDeliveries = (await deliveries()).map((d) => shape(d, alone));
    const aloneFeed = await feedPage(ctx.t, { since: start.next_cursor }, ctx.t.auth.administrator);
    expect(aloneDeliveries).toEqual([
      ['venue.created', 'venue', 0, 'Tivoli', undefined],
      ['category.updated', 'category', 'category', 'Jazz', undefined],
      ['event.created', 'event', 1, 'Concert A', ['Jazz']],
      ['category.updated', 'category', 'category', 'Jazz', undefined],
      ['event.created', 'event', 2, 'Concert B', ['Jazz']],
    ]);

    await ctx.t.reset();
    await subscribe();
    const again = await writes();
    const before = await feedPage(ctx.t, {}, ctx.t.auth.administrator);
    statements = [];
    const answer = await ctx.t
      .http()
      .post(`${API}/batch`)
      .set(auth())
      .send({ atomic: true, operations: again })
      .expect(200);
    const sent = statements;
    statements = undefined;
    const batched = (answer.body.results as Array<{ status: number; body: { id: number } }>).map(
      (result) => {
        expect(result.status).toBe(201);
        return result.body.id;
      },
    );
    expect((await deliveries()).map((d) => shape(d, batched))).toEqual(aloneDeliveries);
    // The sender's own poll (`SELECT id, enabled FROM webhook_endpoints`) runs on its timer and may
    // fall inside the batch; only the writes' reads of the endpoints count here.
    const endpointReads = sent.filter(
      (sql) => /FROM [`"]?webhook_endpoints[`"]?/i.test(sql) && !SENDER_POLL.test(sql),
    );
    expect(endpointReads).toHaveLength(1);
    expect(sent.filter((sql) => /^INSERT INTO [`"]?webhook_deliveries/i.test(sql))).toHaveLength(1);

    // The feed: one entry per record, as after the writes one by one (an atomic batch numbers
    // its records in the order first written, docs/api.md §18).
    const feed = await feedPage(ctx.t, { since: before.next_cursor }, ctx.t.auth.administrator);
    const entries = (page: typeof feed, ids: number[]) =>
      page.changes
        .map((c) => [
          c.kind,
          c.kind === 'category' ? 'category' : ids.indexOf(c.id, KINDS.indexOf(c.kind)),
          c.type,
        ])
        .sort((a, b) => String(a).localeCompare(String(b)));
    expect(entries(feed, batched)).toEqual(entries(aloneFeed, alone));

    // Every delivery reaches the endpoint after COMMIT.
    await ctx.receiver.waitFor('/once', 10);
    expect(ctx.receiver.on('/once')).toHaveLength(10);
  });

  it('verifies the caller once and authorises each operation as that caller', async () => {
    const contributor = ctx.t.auth.contributor;
    const verify = jest.spyOn(ctx.t.app.get(TokenService), 'verify');
    try {
      const answer = await ctx.t
        .http()
        .post(`${API}/batch`)
        .set({ Host: 'api.test', Authorization: contributor })
        .send({
          operations: [
            { method: 'POST', path: '/categories', body: { name: 'Blues' } },
            { method: 'POST', path: '/venues', body: { venue: 'Ekko' } },
            { method: 'POST', path: '/venues', body: { venue: 'Paradiso' } },
          ],
        })
        .expect(200);
      expect(answer.body.results.map((r: { status: number }) => r.status)).toEqual([403, 201, 201]);
      expect(answer.body.results[1].body).toMatchObject({ venue: 'Ekko', author: '4' });
      expect(verify).toHaveBeenCalledTimes(1);
      // A request sent alone is verified as ever.
      await ctx.t.http().post(`${API}/venues`).set({ Authorization: contributor }).send({ venue: 'Ekko 2' }).expect(201);
      expect(verify).toHaveBeenCalledTimes(2);
    } finally {
      verify.mockRestore();
    }
  });
});
