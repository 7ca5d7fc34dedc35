import type { Response } from 'supertest';
import { Webhook } from 'standardwebhooks';
import { htmlToText } from '../../../src/common/text/html-text';
import { FeedClient, FeedPage, withoutJsonLd } from '../helpers/changes';
import { dayAt } from '../helpers/events';
import {
  COLLECTION,
  FREE_TEXT_FIELDS,
  HOSTILE_TEXTS,
  hostileFields,
  Kind,
  markerOf,
} from '../helpers/hostile-texts';
import { readCalendar, rawBody } from '../helpers/ical';
import { withStall } from '../helpers/stall';
import { API, createTestApp, errorBody, TestApp } from '../helpers/test-app';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/*
 * Adversarial content (docs/reliability.md): every text of the catalogue
 * (helpers/hostile-texts.ts) in every stored free-text field of every kind,
 * read back through every channel of the CHANNELS table. Every answer is
 * correct, and no request holds the event loop for STALL_BOUND_MS or more.
 */

/** The longest event-loop delay one request may cause. */
const STALL_BOUND_MS = 100;
const KINDS = Object.keys(FREE_TEXT_FIELDS) as Kind[];
/** Linked records first: each event links the venue, organizer and terms of its text. */
const CREATE_ORDER: Kind[] = ['venue', 'organizer', 'category', 'tag', 'event'];
/** Fields trimmed on input (titles and names). */
const TRIMMED = new Set(['title', 'venue', 'organizer', 'name']);
const WINDOW = { start_date: dayAt(-1, '00:00:00'), end_date: dayAt(30, '00:00:00') };

type Body = Record<string, any>;

interface Created {
  kind: Kind;
  index: number;
  id: number;
  /** The single read (GET /{kind}/{id}). */
  single?: Body;
}

describe('hostile content through every channel', () => {
  // One app and one set of records for all tests: the channels read what the first test wrote.
  const ctx = {} as { t: TestApp; receiver: WebhookReceiver; admin: () => Record<string, string> };
  beforeAll(async () => {
    ctx.receiver = await new WebhookReceiver().start();
    ctx.t = await createTestApp({
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '100ms',
    });
    ctx.admin = () => ({ Authorization: ctx.t.auth.administrator });
  });
  afterAll(async () => {
    await ctx.t?.close();
    await ctx.receiver?.stop();
  });
  const created: Created[] = [];
  /** Each request's least figures, and how to send it again (the same work). */
  const stalls: Array<{
    request: string;
    ms: number;
    cpuMs: number;
    send: () => PromiseLike<Response>;
  }> = [];
  let secret = '';

  /**
   * A request sent `tries` times; its least event-loop delay and least CPU
   * time (this process, in ms) recorded. One try may be late by a CPU that
   * other processes hold; every try is late by what the request computes.
   */
  async function timed(
    request: string,
    send: () => PromiseLike<Response>,
    tries = 5,
  ): Promise<Response> {
    const figures = { request, ms: Infinity, cpuMs: Infinity, send };
    let response: Response | undefined;
    for (let i = 0; i < tries; i++) {
      const [answer, ms] = await measured(send);
      figures.ms = Math.min(figures.ms, ms.delay);
      figures.cpuMs = Math.min(figures.cpuMs, ms.cpu);
      response = answer;
    }
    stalls.push(figures);
    return response!;
  }

  async function measured(
    send: () => PromiseLike<Response>,
  ): Promise<[Response, { delay: number; cpu: number }]> {
    const cpuBefore = process.cpuUsage();
    // The longest single stall: the event-loop delay of one synchronous piece of work.
    const [answer, , delay] = await withStall(async () => send());
    const cpu = process.cpuUsage(cpuBefore);
    return [answer, { delay, cpu: Math.round((cpu.user + cpu.system) / 1000) }];
  }

  /**
   * A create, then two updates of the record with the same body (the same
   * work but for the insert), their least event-loop delay recorded; a
   * refused create is sent three times. Answers the create.
   */
  async function timedWrite(label: string, collection: string, body: Body): Promise<Response> {
    const auth = ctx.t.auth.administrator;
    const [create, ms] = await measured(() =>
      ctx.t.http().post(`${API}/${collection}`).set('Authorization', auth).send(body),
    );
    const again = () =>
      create.status === 201
        ? ctx.t
            .http()
            .patch(`${API}/${collection}/${create.body.id}`)
            .set('Authorization', auth)
            .send(body)
        : ctx.t.http().post(`${API}/${collection}`).set('Authorization', auth).send(body);
    await timed(`POST /${collection}, ${label}`, again, 2);
    const last = stalls[stalls.length - 1];
    last.ms = Math.min(last.ms, ms.delay);
    last.cpuMs = Math.min(last.cpuMs, ms.cpu);
    return create;
  }

  const get = (path: string, query: Record<string, unknown> = {}) =>
    timed(`GET ${path}`, () => ctx.t.http().get(`${API}${path}`).query(query));
  const getCalendar = (path: string, query: Record<string, unknown> = {}) =>
    timed(`GET ${path}`, () =>
      ctx.t.http().get(`${API}${path}`).query(query).buffer(true).parse(rawBody),
    );

  /** The fields of kind `kind` as stored from text `index`. */
  function expectedFields(kind: Kind, index: number): Record<string, string> {
    return Object.fromEntries(
      Object.entries(hostileFields(kind, index)).map(([field, sent]) => [
        field,
        TRIMMED.has(field) ? sent.trim() : sent,
      ]),
    );
  }

  function fieldsOf(kind: Kind, record: Body): Record<string, unknown> {
    return Object.fromEntries(Object.keys(FREE_TEXT_FIELDS[kind]).map((f) => [f, record[f]]));
  }

  /** A record without the API host, which differs between requests (each on its own port). */
  const withoutHost = (record: Body): Body =>
    JSON.parse(JSON.stringify(record).replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://api')) as Body;

  const ofKind = (kind: Kind) => created.filter((c) => c.kind === kind);
  const linkedOf = (kind: Kind, index: number) =>
    created.find((c) => c.kind === kind && c.index === index)!;

  /** A text as a TEXT value of iCalendar carries it: line breaks as LF, control characters but tab dropped. */
  function icalText(text: string): string {
    // eslint-disable-next-line no-control-regex -- as the writer drops them (RFC 5545 §3.1)
    return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  }

  /** The VEVENT of event `index` as a calendar app reads it. */
  function expectedVevent(index: number): Record<string, unknown> {
    const event = expectedFields('event', index);
    const description = htmlToText(event.description);
    return {
      SUMMARY: icalText(event.title),
      ...(description ? { DESCRIPTION: icalText(description) } : {}),
      CATEGORIES: [icalText(expectedFields('category', index).name)],
    };
  }

  function veventTexts(vevent: Record<string, unknown>): Record<string, unknown> {
    const { SUMMARY, DESCRIPTION, CATEGORIES } = vevent;
    return { SUMMARY, ...(DESCRIPTION !== undefined ? { DESCRIPTION } : {}), CATEGORIES };
  }

  /**
   * The channels every stored text is read back through. Each reads every
   * record it carries and checks it against what was stored.
   */
  const CHANNELS: Array<{ name: string; read: () => Promise<void> }> = [
    {
      name: 'single record, with json_ld',
      read: async () => {
        for (const record of created) {
          const res = await get(`/${COLLECTION[record.kind]}/${record.id}`);
          expect(res.status).toBe(200);
          expect(fieldsOf(record.kind, res.body)).toEqual(
            expectedFields(record.kind, record.index),
          );
          if (record.kind === 'event' || record.kind === 'venue' || record.kind === 'organizer') {
            const texts = expectedFields(record.kind, record.index);
            const description = htmlToText(texts.excerpt || texts.description, 'line');
            expect(res.body.json_ld.description).toBe(description || undefined);
          }
          record.single = res.body as Body;
        }
      },
    },
    {
      name: 'lists',
      read: async () => {
        for (const kind of KINDS) {
          const records = ofKind(kind);
          // Pages of 2: an event embeds its venue, organizer and terms, each with 100,000-character
          // texts, so a page of many is megabytes.
          const listed: Body[] = [];
          for (let page = 1, pages = 1; page <= pages; page++) {
            const res = await get(`/${COLLECTION[kind]}`, {
              per_page: 2,
              page,
              ...(kind === 'event' || kind === 'category' || kind === 'tag'
                ? { include: records.map((r) => r.id).join(',') }
                : {}),
            });
            expect(res.status).toBe(200);
            listed.push(...(res.body[COLLECTION[kind]] as Body[]));
            pages = res.body.total_pages as number;
          }
          expect(listed.map((r) => r.id)).toEqual(expect.arrayContaining(records.map((r) => r.id)));
          for (const record of records) {
            const shown = listed.find((r) => r.id === record.id)!;
            expect(fieldsOf(kind, shown)).toEqual(expectedFields(kind, record.index));
          }
        }
      },
    },
    {
      name: 'search on a word of the text',
      read: async () => {
        for (const record of created) {
          const res = await get(`/${COLLECTION[record.kind]}`, {
            search: markerOf(record.index),
            ...(record.kind === 'event' ? WINDOW : {}),
          });
          expect(res.status).toBe(200);
          expect((res.body[COLLECTION[record.kind]] as Body[]).map((r) => r.id)).toEqual([
            record.id,
          ]);
        }
      },
    },
    {
      name: 'iCalendar, single event',
      read: async () => {
        for (const event of ofKind('event')) {
          const res = await getCalendar(`/events/${event.id}.ics`);
          expect(res.status).toBe(200);
          const calendar = readCalendar(res);
          expect(calendar.events.map(veventTexts)).toEqual([expectedVevent(event.index)]);
        }
      },
    },
    {
      name: 'iCalendar feed',
      read: async () => {
        const res = await getCalendar('/events.ics', WINDOW);
        expect(res.status).toBe(200);
        const calendar = readCalendar(res);
        const events = ofKind('event');
        expect(calendar.events.map(veventTexts)).toEqual(
          [...events].sort((a, b) => a.id - b.id).map((event) => expectedVevent(event.index)),
        );
      },
    },
    {
      name: 'changes feed',
      read: async () => {
        // Pages of 5: a page of records that each hold 100,000-character texts is megabytes.
        const copies = new Map<string, Body>();
        let since: string | undefined;
        for (let more = true; more;) {
          const res = await get('/changes', { per_page: 5, ...(since ? { since } : {}) });
          expect(res.status).toBe(200);
          const page = res.body as FeedPage;
          for (const entry of page.changes) {
            if (entry.type === 'upsert') copies.set(`${entry.kind}:${entry.id}`, entry.record!);
            else copies.delete(`${entry.kind}:${entry.id}`);
          }
          since = page.next_cursor;
          more = page.has_more;
        }
        for (const record of created) {
          const copy = copies.get(`${record.kind}:${record.id}`)!;
          expect(withoutHost(copy)).toEqual(withoutHost(withoutJsonLd(record.single!)));
        }
      },
    },
    {
      name: 'webhook body',
      read: async () => {
        const received = await ctx.receiver.waitFor('/hook', created.length, 30_000);
        const bodies = received.map((message) => {
          const payload = new Webhook(secret).verify(message.body, {
            'webhook-id': String(message.headers['webhook-id']),
            'webhook-timestamp': String(message.headers['webhook-timestamp']),
            'webhook-signature': String(message.headers['webhook-signature']),
          }) as { type: string; data: { kind: Kind; id: number; record: Body } };
          return payload;
        });
        for (const record of created) {
          const message = bodies.find(
            (b) => b.type === `${record.kind}.created` && b.data.id === record.id,
          );
          expect(fieldsOf(record.kind, message!.data.record)).toEqual(
            expectedFields(record.kind, record.index),
          );
        }
      },
    },
  ];

  /**
   * Every route of the channels once with ordinary records, which are then
   * deleted for good: the first request of a route compiles code and
   * response schemas, a stall that no text causes.
   */
  async function warmUp(): Promise<void> {
    const http = () => ctx.t.http();
    const admin = ctx.t.auth.administrator;
    const ordinary: Record<Kind, Body> = {
      venue: { venue: 'Paradiso', description: '<p>Pop</p>' },
      organizer: { organizer: 'Stichting', description: '<p>Org</p>' },
      category: { name: 'Muziek' },
      tag: { name: 'buiten' },
      event: { title: 'Jazz', description: '<p>Jazz</p>', ...WINDOW },
    };
    const ids = {} as Record<Kind, number>;
    for (const kind of CREATE_ORDER) {
      const links =
        kind === 'event'
          ? {
              venue: ids.venue,
              organizer: [ids.organizer],
              categories: [ids.category],
              tags: [ids.tag],
            }
          : {};
      const res = await http()
        .post(`${API}/${COLLECTION[kind]}`)
        .set('Authorization', admin)
        .send({
          ...ordinary[kind],
          ...links,
          ...(kind === 'event' ? { start_date: dayAt(3), end_date: dayAt(3, '13:00:00') } : {}),
        });
      expect(res.status).toBe(201);
      ids[kind] = res.body.id as number;
      await http().get(`${API}/${COLLECTION[kind]}/${ids[kind]}`).expect(200);
      await http()
        .get(`${API}/${COLLECTION[kind]}`)
        .query({ search: 'x', ...WINDOW })
        .expect(200);
    }
    await http().get(`${API}/events/${ids.event}.ics`).expect(200);
    await http().get(`${API}/events.ics`).query(WINDOW).expect(200);
    await new FeedClient(ctx.t).sync();
    for (const kind of [...CREATE_ORDER].reverse()) {
      await http()
        .delete(`${API}/${COLLECTION[kind]}/${ids[kind]}`)
        .query({ force: true })
        .set('Authorization', admin)
        .expect(200);
    }
  }

  it('creates every text in every free-text field of every kind', async () => {
    await warmUp();
    const hook = await ctx.t
      .http()
      .post(`${API}/webhooks`)
      .set(ctx.admin())
      .send({
        url: ctx.receiver.url('/hook'),
        events: KINDS.map((kind) => `${kind}.created`),
      });
    expect(hook.status).toBe(201);
    secret = hook.body.secret as string;
    for (let index = 0; index < HOSTILE_TEXTS.length; index++) {
      const { name, refused } = HOSTILE_TEXTS[index];
      for (const kind of CREATE_ORDER) {
        const links =
          kind === 'event'
            ? {
                start_date: dayAt(3, '20:00:00'),
                end_date: dayAt(3, '22:00:00'),
                ...(refused
                  ? {}
                  : {
                      venue: linkedOf('venue', index).id,
                      organizer: [linkedOf('organizer', index).id],
                      categories: [linkedOf('category', index).id],
                      tags: [linkedOf('tag', index).id],
                    }),
              }
            : {};
        const body = { ...hostileFields(kind, index), ...links };
        const res = await timedWrite(`${kind} (${name})`, COLLECTION[kind], body);
        if (refused) {
          const params = Object.fromEntries(
            Object.keys(FREE_TEXT_FIELDS[kind]).map((field) => [field, expect.any(String)]),
          );
          expect([name, kind, res.status, res.body]).toEqual([
            name,
            kind,
            400,
            errorBody('rest_invalid_param', 400, params),
          ]);
          continue;
        }
        expect([name, kind, res.status]).toEqual([name, kind, 201]);
        expect(fieldsOf(kind, res.body)).toEqual(expectedFields(kind, index));
        created.push({ kind, index, id: res.body.id as number });
      }
    }
    created.sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind) || a.id - b.id);
  });

  it.each(CHANNELS.map((channel) => [channel.name, channel]))(
    'reads every text back through: %s',
    async (_name, channel) => {
      await channel.read();
    },
  );

  it(`holds the event loop less than ${STALL_BOUND_MS} ms in every request`, async () => {
    // A request over the bound is measured again, later: text that makes the service compute
    // that long does so every time, while a collection of the test process's whole heap (the
    // app runs in it, beside every suite before) happens to one request.
    for (const stall of stalls) {
      if (stall.ms < STALL_BOUND_MS || stall.cpuMs < STALL_BOUND_MS) continue;
      for (let i = 0; i < 3; i++) {
        const [, ms] = await measured(stall.send);
        stall.ms = Math.min(stall.ms, ms.delay);
        stall.cpuMs = Math.min(stall.cpuMs, ms.cpu);
      }
    }
    const worst = [...stalls].sort((a, b) => b.ms - a.ms);
    // The figure for docs/reliability.md.
    process.stdout.write(
      `hostile content (${process.env.TEST_ENGINE ?? 'sqlite'}): ${stalls.length} requests, longest event-loop delays ${worst
        .slice(0, 5)
        .map((s) => `${s.ms} ms, CPU ${s.cpuMs} ms (${s.request})`)
        .join(', ')}\n`,
    );
    const byCpu = [...stalls].sort((a, b) => b.cpuMs - a.cpuMs)[0];
    process.stdout.write(`most CPU: ${byCpu?.cpuMs} ms (${byCpu?.request})\n`);
    // A delay over the bound counts when the request itself computed that long: on a shared
    // machine the delay also holds the time other processes had the CPU.
    expect(worst.filter((s) => s.ms >= STALL_BOUND_MS && s.cpuMs >= STALL_BOUND_MS)).toEqual([]);
  });
});
