import fc from 'fast-check';
import { DateTime } from 'luxon';
import { Webhook } from 'standardwebhooks';
import { RecurrenceService } from '../../src/events/recurrence/recurrence.service';
import { FeedClient, readAsFeed } from './helpers/changes';
import { eventRequests } from './helpers/events';
import { expandCalendar, rawBody, readCalendar } from './helpers/ical';
import { API } from './helpers/test-app';
import { eventually, useWebhookApp } from './helpers/webhook-receiver';

/*
 * Recurrence with everything else (docs/recurrence.md): random sequences of
 * series edits, occurrence edits, trash, restore, force-delete, series trash
 * and restore and venue changes. After every step:
 * - nothing is lost that was not deleted for good: the administrator reads
 *   the series and every occurrence a step touched, trashed or not as the
 *   steps left it;
 * - `/events` for a window is what ical.js expands from the feed of that
 *   window, date for date;
 * - a client following `/changes` holds exactly what the full list shows,
 *   each record as its GET shows it.
 * After each sequence every change message reached the receiver once per
 * message ID, and the last message of each event agrees with the event.
 * PROPERTY_SEED and PROPERTY_RUNS replay or widen a run; a failure prints the
 * sequence.
 */

const ZONES = ['Europe/Amsterdam', 'America/New_York', 'Asia/Tokyo', 'UTC'] as const;
/** The window compared: wide around every date a sequence can make, inside the horizon. */
const WINDOW = { from: '2026-10-01', to: '2028-06-30' };
const TODAY = DateTime.fromISO('2026-12-01T12:00:00Z');

const rule = fc.oneof(
  fc
    .tuple(
      fc.uniqueArray(fc.constantFrom('MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'), {
        minLength: 1,
        maxLength: 3,
      }),
      fc.integer({ min: 2, max: 6 }),
    )
    .map(([days, count]) => `RRULE:FREQ=WEEKLY;BYDAY=${days.join(',')};COUNT=${count}`),
  fc
    .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 2, max: 6 }))
    .map(([interval, count]) => `RRULE:FREQ=DAILY;INTERVAL=${interval};COUNT=${count}`),
  fc
    .tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 20, max: 200 }))
    .map(([day, days]) => {
      const until = TODAY.plus({ days: days + 30 }).toFormat('yyyyMMdd');
      return `RRULE:FREQ=MONTHLY;BYMONTHDAY=${day},-1;UNTIL=${until}`;
    }),
);

/** A start: days after 2026-12-01 and a time of day (quarter hours). */
const start = fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 95 }));

type Step =
  | { op: 'editSeries'; title?: string; rule?: string; start?: [number, number]; zone?: string }
  | { op: 'editOccurrence'; pick: number; title: string; hours: number }
  | { op: 'trash' | 'restore' | 'forceDelete'; pick: number }
  | { op: 'trashSeries' | 'restoreSeries' }
  | { op: 'venue'; venue: 0 | 1 | null };

const title = fc.constantFrom('Koor', 'Cursus', 'Lezing', 'Markt');
const pick = fc.nat({ max: 50 });
/** Weighted so that trash and restore meet series edits often within eight steps. */
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      {
        op: fc.constant('editSeries' as const),
        title,
        rule,
        start,
        zone: fc.constantFrom(...ZONES),
      },
      { requiredKeys: ['op'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('editOccurrence' as const),
      pick,
      title: title.map((t) => `${t} (apart)`),
      hours: fc.integer({ min: -2, max: 2 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('trash' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('restore' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('forceDelete' as const), pick }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constantFrom('trashSeries' as const, 'restoreSeries' as const) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('venue' as const),
      venue: fc.constantFrom(0 as const, 1 as const, null),
    }),
  },
);

const wire = (days: number, quarter: number, plusMinutes = 0) =>
  TODAY.startOf('day')
    .plus({ days, minutes: quarter * 15 + plusMinutes })
    .toFormat('yyyy-MM-dd HH:mm:ss');

interface Listed {
  id: number;
  title: string;
  status: string;
  utc_start_date: string;
  start_date: string;
  end_date: string;
}

describe('recurrence with everything else (property, contract §4, §7, §12, §14–§16)', () => {
  const ctx = useWebhookApp({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
  });
  let run = 0;

  beforeAll(async () => {
    // One server for every request, so the records' absolute URLs stay the same.
    await ctx.t.app.listen(0, '127.0.0.1');
    ctx.t.app.get(RecurrenceService).now = () => TODAY;
  });

  it('keeps every record, the feed, the changes and the webhooks in agreement', async () => {
    const t = () => ctx.t;
    const api = () => eventRequests(ctx.t);

    async function listAll(query: string, user?: 'administrator'): Promise<Listed[]> {
      const events: Listed[] = [];
      for (let page = 1; ; page++) {
        const res = await api().get(`/events?${query}&per_page=100&page=${page}`, user).expect(200);
        events.push(...(res.body.events as Listed[]));
        if (!res.body.next_rest_url) return events;
      }
    }

    await fc.assert(
      fc.asyncProperty(
        fc.record({ title, rule, start, zone: fc.constantFrom(...ZONES) }),
        fc.array(step, { minLength: 2, maxLength: 8 }),
        async (first, steps) => {
          run++;
          await t().reset();
          const path = `/run-${run}`;
          const endpoint = (
            await t()
              .http()
              .post(`${API}/webhooks`)
              .set(ctx.admin())
              .send({
                url: ctx.receiver.url(path),
                events: ['event.created', 'event.updated', 'event.deleted'],
              })
              .expect(201)
          ).body as { id: number; secret: string };
          const venues = [
            (await api().createVenue({ venue: 'Tivoli' }, 'editor').expect(201)).body.id as number,
            (await api().createVenue({ venue: 'Paradiso' }, 'editor').expect(201)).body
              .id as number,
          ];
          const feed = new FeedClient(t(), undefined, { kinds: 'events' });

          const created = await api()
            .create(
              {
                title: first.title,
                start_date: wire(first.start[0], first.start[1]),
                end_date: wire(first.start[0], first.start[1], 90),
                timezone: first.zone,
                recurrence: [first.rule],
              },
              'editor',
            )
            .expect(201);
          const seriesId = created.body.id as number;
          /** What a step touched, and whether it must be in the trash now. */
          const kept = new Map<number, boolean>([[seriesId, false]]);
          /** Trashed on their own, their date still one of the series' EXDATEs. */
          const excludedAlone = new Set<number>();
          const forceDeleted = new Set<number>();
          let seriesTrashed = false;

          const occurrences = async () =>
            (
              await listAll(
                `post_parent=${seriesId}&status=publish,trash&start_date=2000-01-01&end_date=2100-01-01`,
                'administrator',
              )
            ).sort((a, b) => a.id - b.id);
          const chosen = async (index: number, wanted?: (o: Listed) => boolean) => {
            const all = (await occurrences()).filter(wanted ?? (() => true));
            return all.length > 0 ? all[index % all.length] : undefined;
          };

          await checkAll();
          for (const s of steps) {
            await apply(s);
            await checkAll();
          }
          await checkWebhooks();

          async function apply(s: Step): Promise<void> {
            switch (s.op) {
              case 'editSeries': {
                const body: Record<string, unknown> = {};
                if (s.title) body.title = s.title;
                if (s.rule) body.recurrence = [s.rule];
                if (s.zone) body.timezone = s.zone;
                if (s.start) {
                  body.start_date = wire(s.start[0], s.start[1]);
                  body.end_date = wire(s.start[0], s.start[1], 90);
                }
                await api().update(seriesId, body, 'editor').expect(200);
                // New lines replace the old ones, EXDATEs of trashed occurrences included.
                if (s.rule) excludedAlone.clear();
                return;
              }
              case 'editOccurrence': {
                const target = await chosen(s.pick);
                if (!target) return;
                const shift = (value: string) =>
                  DateTime.fromSQL(value).plus({ hours: s.hours }).toFormat('yyyy-MM-dd HH:mm:ss');
                await api()
                  .update(
                    target.id,
                    {
                      title: s.title,
                      start_date: shift(target.start_date),
                      end_date: shift(target.end_date),
                    },
                    'editor',
                  )
                  .expect(200);
                if (!kept.has(target.id)) {
                  // Untouched until now: in the trash only if it went there with the series.
                  kept.set(target.id, target.status === 'trash');
                }
                return;
              }
              case 'trash': {
                const target = await chosen(s.pick, (o) => o.status !== 'trash');
                if (!target || seriesTrashed) return;
                await api().remove(`/events/${target.id}`, 'editor').expect(200);
                kept.set(target.id, true);
                excludedAlone.add(target.id);
                return;
              }
              case 'restore': {
                const target = await chosen(s.pick, (o) => o.status === 'trash');
                if (!target || seriesTrashed) return;
                await api().update(target.id, { status: 'publish' }, 'editor').expect(200);
                kept.set(target.id, false);
                excludedAlone.delete(target.id);
                return;
              }
              case 'forceDelete': {
                const target = await chosen(s.pick);
                if (!target) return;
                await api().remove(`/events/${target.id}?force=true`, 'editor').expect(200);
                kept.delete(target.id);
                excludedAlone.delete(target.id);
                forceDeleted.add(target.id);
                return;
              }
              case 'trashSeries': {
                if (seriesTrashed) return;
                await api().remove(`/events/${seriesId}`, 'editor').expect(200);
                seriesTrashed = true;
                for (const id of kept.keys()) kept.set(id, true);
                return;
              }
              case 'restoreSeries': {
                if (!seriesTrashed) return;
                await api().update(seriesId, { status: 'publish' }, 'editor').expect(200);
                seriesTrashed = false;
                // Back: everything in the trash but what was trashed on its own (an EXDATE).
                for (const id of kept.keys()) if (!excludedAlone.has(id)) kept.set(id, false);
                return;
              }
              case 'venue': {
                const venue = s.venue === null ? 0 : venues[s.venue];
                await api().update(seriesId, { venue }, 'editor').expect(200);
                return;
              }
            }
          }

          async function checkAll(): Promise<void> {
            // Nothing lost: every record a step touched, trashed exactly when the steps say so.
            for (const [id, trashed] of kept) {
              const res = await api().get(`/events/${id}?context=edit`, 'administrator');
              expect([id, res.status, res.body.status === 'trash']).toEqual([id, 200, trashed]);
            }
            for (const id of forceDeleted)
              await api().get(`/events/${id}`, 'administrator').expect(404);

            // The list of a window is what a calendar app expands from the feed of that window.
            const query = `start_date=${WINDOW.from}&end_date=${WINDOW.to}`;
            const res = await t()
              .http()
              .get(`${API}/events.ics?${query}`)
              .buffer(true)
              .parse(rawBody)
              .expect(200);
            readCalendar(res);
            const shown = expandCalendar(res, `${WINDOW.from} 00:00:00`, `${WINDOW.to} 23:59:59`);
            const listed = await listAll(query);
            expect(shown.map((e) => [e.start, e.summary]).sort()).toEqual(
              listed.map((e) => [e.utc_start_date, e.title]).sort(),
            );

            // A client of the changes feed holds exactly the full list, each record as its GET.
            await feed.sync();
            const everything = await listAll('start_date=1000-01-01&end_date=9999-12-31');
            expect(feed.keys('event')).toEqual(everything.map((e) => `event:${e.id}`).sort());
            for (const e of everything) {
              expect(feed.records.get(`event:${e.id}`)).toEqual(
                await readAsFeed(t(), `/events/${e.id}`),
              );
            }
          }

          async function checkWebhooks(): Promise<void> {
            type Delivery = { id: number; message_id: string; status: string };
            const allDeliveries = async () => {
              const list: Delivery[] = [];
              for (let page = 1; ; page++) {
                const res = await t()
                  .http()
                  .get(`${API}/webhooks/${endpoint.id}/deliveries?page=${page}`)
                  .set(ctx.admin())
                  .expect(200);
                list.push(...(res.body.deliveries as Delivery[]));
                if (!res.body.next_rest_url) return list;
              }
            };
            const deliveries = await eventually(
              allDeliveries,
              (list) => list.every((d) => d.status === 'delivered'),
              20_000,
            );
            const received = ctx.receiver.on(path);
            const ids = received.map((r) => String(r.headers['webhook-id']));
            // Once per message ID, and every message that was written.
            expect(ids.sort()).toEqual(deliveries.map((d) => d.message_id).sort());
            const order = new Map(deliveries.map((d) => [d.message_id, d.id]));
            const verifier = new Webhook(endpoint.secret);
            const messages = received
              .map((r) => ({
                order: order.get(String(r.headers['webhook-id'])) as number,
                body: verifier.verify(r.body, {
                  'webhook-id': String(r.headers['webhook-id']),
                  'webhook-timestamp': String(r.headers['webhook-timestamp']),
                  'webhook-signature': String(r.headers['webhook-signature']),
                }) as {
                  type: string;
                  data: { id: number; permanent?: boolean; record?: { status: string } };
                },
              }))
              .sort((a, b) => a.order - b.order);
            const last = new Map(messages.map((m) => [m.body.data.id, m.body]));
            for (const [id, message] of last) {
              const res = await api().get(`/events/${id}?context=edit`, 'administrator');
              const state =
                res.status === 404 ? 'gone' : res.body.status === 'trash' ? 'trash' : 'live';
              const announced =
                message.type === 'event.deleted'
                  ? message.data.permanent
                    ? 'gone'
                    : 'trash'
                  : message.data.record?.status === 'trash'
                    ? 'trash'
                    : 'live';
              expect([id, announced]).toEqual([id, state]);
            }
          }
        },
      ),
      {
        numRuns: Number(process.env.PROPERTY_RUNS ?? 12),
        seed: Number(process.env.PROPERTY_SEED ?? 20261128),
        endOnFailure: true,
        verbose: true,
      },
    );
  }, 600_000);
});
