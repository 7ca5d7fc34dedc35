import fc from 'fast-check';
import { DateTime } from 'luxon';
import { SharedRecordBytes } from '../../src/common/records/shared-record-bytes';
import { readAsFeed } from './helpers/changes';
import { API, createTestApp, TestApp, UserName } from './helpers/test-app';

/*
 * Event list records are kept for anonymous readers per language and host
 * while the data version holds (EventRecordsService.sharedListRecords), and
 * list pages are written from their encoded JSON. Whatever writes come
 * between reads (events, the venues, organizers and terms they embed, status
 * changes, trash and restore, passwords), every list item must be the event
 * as a single read shows it to the same caller (without json_ld), and the
 * answer's bytes exactly those of JSON.stringify.
 */

const day = DateTime.utc().plus({ days: 3 }).startOf('day');
const at = (days: number, hours: number) =>
  day.plus({ days, hours }).toFormat('yyyy-MM-dd HH:mm:ss');
const EVENTS = 5;
const PASSWORD = 'sesam';

type Reader = 'anonymous' | Extract<UserName, 'editor' | 'author'>;

type Action =
  | { kind: 'title'; event: number; language: 'nl' | 'en'; title: string }
  | { kind: 'venue'; event: number; venue: number | null }
  | { kind: 'categories'; event: number; categories: number[] }
  | { kind: 'status'; event: number; status: 'draft' | 'publish' }
  | { kind: 'trash'; event: number }
  | { kind: 'password'; event: number; on: boolean }
  | { kind: 'renameVenue'; venue: number; name: string }
  | { kind: 'renameOrganizer'; organizer: number; name: string }
  | { kind: 'renameCategory'; category: number; name: string }
  | { kind: 'venueStatus'; venue: number; status: 'draft' | 'publish' }
  | { kind: 'swapCategorySlugs' };

interface Read {
  reader: Reader;
  language: 'nl' | 'en';
  password: boolean;
  perPage: number;
  /** A category filter by slug, or by ID (`#i`: the ID of the i-th category made). */
  category?: string;
}

const name = fc.constantFrom('Zaal', 'Grote zaal', 'Café “Noord”', 'Bühne', '舞台', 'A\u0301');
const eventIndex = fc.integer({ min: 0, max: EVENTS - 1 });
const pair = fc.integer({ min: 0, max: 1 });

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('title' as const),
    event: eventIndex,
    language: fc.constantFrom('nl' as const, 'en' as const),
    title: name,
  }),
  fc.record({
    kind: fc.constant('venue' as const),
    event: eventIndex,
    venue: fc.option(pair, { nil: null }),
  }),
  fc.record({
    kind: fc.constant('categories' as const),
    event: eventIndex,
    categories: fc.subarray([0, 1]),
  }),
  fc.record({
    kind: fc.constant('status' as const),
    event: eventIndex,
    status: fc.constantFrom('draft' as const, 'publish' as const),
  }),
  fc.record({ kind: fc.constant('trash' as const), event: eventIndex }),
  fc.record({ kind: fc.constant('password' as const), event: eventIndex, on: fc.boolean() }),
  fc.record({ kind: fc.constant('renameVenue' as const), venue: pair, name }),
  fc.record({ kind: fc.constant('renameOrganizer' as const), organizer: pair, name }),
  fc.record({ kind: fc.constant('renameCategory' as const), category: pair, name }),
  fc.constant({ kind: 'swapCategorySlugs' as const }),
  fc.record({
    kind: fc.constant('venueStatus' as const),
    venue: pair,
    status: fc.constantFrom('draft' as const, 'publish' as const),
  }),
);

const read: fc.Arbitrary<Read> = fc.record({
  reader: fc.constantFrom<Reader>('anonymous', 'anonymous', 'anonymous', 'editor', 'author'),
  language: fc.constantFrom('nl' as const, 'en' as const),
  password: fc.boolean(),
  perPage: fc.integer({ min: 1, max: EVENTS + 1 }),
  category: fc.option(fc.constantFrom('muziek', 'theater', '#0', '#1'), { nil: undefined }),
});

describe('event list records kept for anonymous readers', () => {
  let t: TestApp;
  let ids: { events: number[]; venues: number[]; organizers: number[]; categories: number[] };
  /** Every lookup of kept records (SharedRecordBytes.found): the IDs asked, and how many were kept. */
  const lookups: Array<{ asked: number[]; hits: number }> = [];

  beforeAll(async () => {
    t = await createTestApp();
    // One port for every request, so the absolute URLs of records compare equal across requests.
    await t.app.listen(0, '127.0.0.1');
    const found = SharedRecordBytes.prototype.found;
    jest.spyOn(SharedRecordBytes.prototype, 'found').mockImplementation(function (
      this: SharedRecordBytes<object>,
      ids,
    ) {
      const kept = found.call(this, ids);
      lookups.push({ asked: [...ids], hits: kept.size });
      return kept;
    });
  });
  afterAll(() => t?.close());

  const send = (method: 'post' | 'patch' | 'delete', path: string, body?: object) => {
    const request = t.http()[method](`${API}${path}`).set('Authorization', t.auth.editor);
    return (body ? request.send(body) : request).then((res) => {
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return res.body as { id: number };
    });
  };

  async function seed() {
    await t.reset();
    const venues = [
      (await send('post', '/venues', { venue: 'Zaal' })).id,
      (await send('post', '/venues', { venue: 'Kelder' })).id,
    ];
    await send('patch', `/venues/${venues[0]}?language=en`, { venue: 'Hall' });
    const organizers = [
      (await send('post', '/organizers', { organizer: 'Stichting' })).id,
      (await send('post', '/organizers', { organizer: 'Vereniging' })).id,
    ];
    const categories = [
      (await send('post', '/categories', { name: 'Muziek' })).id,
      (await send('post', '/categories', { name: 'Theater' })).id,
    ];
    const events: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const created = await send('post', '/events', {
        title: `Event ${i}`,
        start_date: at(i, 20),
        end_date: at(i, 22),
        venue: venues[i % 2],
        organizer: i % 2 === 0 ? organizers : [organizers[1]],
        categories: i === 0 ? [] : [categories[i % 2]],
        tags: i % 2 === 0 ? 'buiten' : '',
        ...(i === 4 ? { password: PASSWORD, description: 'Geheim' } : {}),
      });
      events.push(created.id);
    }
    await send('patch', `/events/${events[1]}?language=en`, { title: 'Event one' });
    ids = { events, venues, organizers, categories };
  }

  async function apply(step: Action) {
    const event = (i: number) => ids.events[i];
    switch (step.kind) {
      case 'title':
        return send('patch', `/events/${event(step.event)}?language=${step.language}`, {
          title: step.title,
        });
      case 'venue':
        return send('patch', `/events/${event(step.event)}`, {
          venue: step.venue === null ? 0 : ids.venues[step.venue],
        });
      case 'categories':
        return send('patch', `/events/${event(step.event)}`, {
          categories: step.categories.map((i) => ids.categories[i]),
        });
      case 'status':
        return send('patch', `/events/${event(step.event)}`, { status: step.status });
      case 'trash': {
        const id = event(step.event);
        const res = await t
          .http()
          .delete(`${API}/events/${id}`)
          .set('Authorization', t.auth.editor);
        // Already in the trash: 410, nothing changed.
        if (res.status !== 200 && res.status !== 410) throw new Error(`trash: ${res.status}`);
        return undefined;
      }
      case 'password':
        return send('patch', `/events/${event(step.event)}`, {
          password: step.on ? PASSWORD : '',
        });
      case 'renameVenue':
        return send('patch', `/venues/${ids.venues[step.venue]}`, { venue: step.name });
      case 'renameOrganizer':
        return send('patch', `/organizers/${ids.organizers[step.organizer]}`, {
          organizer: step.name,
        });
      case 'renameCategory':
        // Term names are unique per taxonomy: each category draws from its own.
        return send('patch', `/categories/${ids.categories[step.category]}`, {
          name: `${step.name} ${step.category}`,
        });
      case 'swapCategorySlugs': {
        // The slug a list filters by moves to the other category.
        const [a, b] = ids.categories;
        const slugs = await Promise.all(
          [a, b].map(
            async (id) =>
              (await t.http().get(`${API}/categories/${id}`).expect(200)).body.slug as string,
          ),
        );
        await send('patch', `/categories/${a}`, { slug: 'verhuizing' });
        await send('patch', `/categories/${b}`, { slug: slugs[0] });
        return send('patch', `/categories/${a}`, { slug: slugs[1] });
      }
      case 'venueStatus':
        return send('patch', `/venues/${ids.venues[step.venue]}`, { status: step.status });
    }
  }

  /** A list page as `r` reads it, its bytes checked, each item against the event's single read. */
  async function checkList(r: Read) {
    const password = r.password ? `&password=${PASSWORD}` : '';
    const query = `language=${r.language}&per_page=${r.perPage}${password}`;
    if (r.category !== undefined) await checkFilter(r, password);
    const request = t.http().get(`${API}/events?${query}`);
    const res = await (r.reader === 'anonymous'
      ? request
      : request.set('Authorization', t.auth[r.reader]));
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(JSON.parse(res.text)));
    const items = res.body.events as Array<Record<string, unknown> & { id: number }>;
    for (const item of items) {
      if (item.password_protected === true && r.reader !== 'editor' && !r.password) {
        // Blanked in the list (no password sent, and the reader may not edit the event: a
        // single read would be refused).
        expect(item).toMatchObject({ description: '', all_day: null, featured: null });
        continue;
      }
      const shown = (await readAsFeed(
        t,
        `/events/${item.id}?language=${r.language}&password=${PASSWORD}`,
        r.reader === 'anonymous' ? undefined : r.reader,
      )) as Record<string, unknown>;
      expect(item).toEqual(shown);
    }
    return items.length;
  }

  /**
   * A category filter (by slug or ID) lists exactly the events of the whole list that embed
   * that category now, in the same order.
   */
  async function checkFilter(r: Read, password: string) {
    const filter = r.category!.startsWith('#')
      ? String(ids.categories[Number(r.category!.slice(1))])
      : r.category!;
    const read = async (parameter: string) => {
      const request = t
        .http()
        .get(`${API}/events?language=${r.language}&per_page=50${password}${parameter}`);
      const res = await (r.reader === 'anonymous'
        ? request
        : request.set('Authorization', t.auth[r.reader]));
      if (res.status === 400) return undefined;
      expect(res.status).toBe(200);
      return res.body.events as Array<{
        id: number;
        all_day: boolean | null;
        categories: Array<{ id: number; slug: string }>;
      }>;
    };
    const all = (await read(''))!;
    const named = await read(`&categories=${filter}`);
    // The categories as they are now (an anonymous category list leaves out empty ones).
    const category = await Promise.all(
      ids.categories.map(
        async (id) =>
          (await t.http().get(`${API}/categories/${id}`).expect(200)).body as {
            id: number;
            slug: string;
          },
      ),
    );
    const known = category.find((c) => String(c.id) === filter || c.slug === filter);
    expect(named === undefined).toBe(known === undefined);
    if (!known) return;
    // A blanked event shows no categories: only the others are compared.
    const shown = (events: typeof all) => events.filter((e) => e.all_day !== null);
    expect(shown(named!).map((e) => e.id)).toEqual(
      shown(all)
        .filter((e) => e.categories.some((c) => c.id === known.id))
        .map((e) => e.id),
    );
  }

  it('answers every list item as the single read shows it, whatever writes came between', async () => {
    let nonEmpty = 0;
    lookups.length = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.array(action, { maxLength: 3 }), read), {
          minLength: 1,
          maxLength: 6,
        }),
        async (steps) => {
          await seed();
          for (const [actions, r] of steps) {
            for (const step of actions) await apply(step);
            // Twice: the second read of the same version is answered from the kept records.
            if ((await checkList(r)) > 0) nonEmpty++;
            await checkList(r);
          }
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 25) },
    );
    expect(nonEmpty).toBeGreaterThan(20);
    // The kept records were used, not only made.
    expect(lookups.reduce((sum, lookup) => sum + lookup.hits, 0)).toBeGreaterThan(50);
  });

  it('keeps no record for signed-in readers or blanked events, and none across a write', async () => {
    await seed();
    lookups.length = 0;
    await checkList({ reader: 'editor', language: 'nl', password: false, perPage: EVENTS });
    expect(lookups).toEqual([]);
    // Anonymous without the password: the protected event is blanked, not looked up.
    await checkList({ reader: 'anonymous', language: 'nl', password: false, perPage: EVENTS });
    await checkList({ reader: 'anonymous', language: 'nl', password: false, perPage: EVENTS });
    const shown = ids.events.slice(0, 4);
    expect(lookups).toEqual([
      { asked: shown, hits: 0 },
      { asked: shown, hits: 4 },
    ]);
    // With it, the protected event is kept too; a write starts over.
    await checkList({ reader: 'anonymous', language: 'nl', password: true, perPage: EVENTS });
    await send('patch', `/events/${ids.events[0]}`, { title: 'Nieuw' });
    await checkList({ reader: 'anonymous', language: 'nl', password: true, perPage: EVENTS });
    expect(lookups.slice(2)).toEqual([
      { asked: ids.events, hits: 4 },
      { asked: ids.events, hits: 0 },
    ]);
  });
});
