import fc from 'fast-check';
import { DateTime, FixedOffsetZone } from 'luxon';
import { makePlan } from '../../scripts/seed/plan';
import { EVENT_TEXTS, textMatchCountSql, textQuery } from '../../src/database/full-text';
import { seedDatabase } from '../../scripts/seed/seed-database';
import { eventWindow } from '../../src/events/date-window';
import { eventListQuery, orderEvents, SearchPlan } from '../../src/events/event-list-query';
import { dayAt, eventRequests } from './helpers/events';
import { createTestApp, TestApp } from './helpers/test-app';

/*
 * The two ways a search is read (docs/performance.md "Search": from the
 * matched events, or along the window's index) give the same pages and
 * totals. Random events (texts from a small vocabulary whose words begin
 * one another, in one or both languages, drafts, featured, dates) and random
 * searches (words and prefixes, windows, featured, language, pages): the
 * list over HTTP, whichever plan the service chooses, and each plan run
 * directly, all equal a model of the rule of docs/api.md §5.1 (every word
 * begins a word of the texts the event shows: its language's, else the
 * other's). PROPERTY_SEED and PROPERTY_RUNS replay or widen a run.
 */

const VOCABULARY = ['avond', 'avondmarkt', 'jazz', 'jazzavond', 'markt', 'koor', 'orgel', 'film'];
/** Searched words: whole words and prefixes of them. */
const WORDS = [...VOCABULARY, 'avo', 'jaz', 'mar', 'orgelconcert', 'zzz'];

interface EventInput {
  nl?: string;
  en?: string;
  day: number;
  featured: boolean;
  draft: boolean;
}

interface SearchInput {
  words: string[];
  from?: number;
  to?: number;
  featured?: boolean;
  language: 'nl' | 'en';
  perPage: number;
  page: number;
}

const text = fc
  .array(fc.constantFrom(...VOCABULARY, 'de', 'Zomer-avond', 'Orgel_concert'), {
    minLength: 1,
    maxLength: 3,
  })
  .map((words) => words.join(' '));

const eventInput: fc.Arbitrary<EventInput> = fc
  .record({
    nl: fc.option(text, { nil: undefined }),
    en: fc.option(text, { nil: undefined }),
    day: fc.integer({ min: -5, max: 20 }),
    featured: fc.boolean(),
    draft: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  })
  .filter((e) => e.nl !== undefined || e.en !== undefined);

const searchInput: fc.Arbitrary<SearchInput> = fc
  .record(
    {
      words: fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 2 }),
      from: fc.integer({ min: -5, max: 20 }),
      /** Days from the window's start to its end. */
      span: fc.integer({ min: 0, max: 25 }),
      featured: fc.boolean(),
      language: fc.constantFrom('nl' as const, 'en' as const),
      perPage: fc.integer({ min: 1, max: 4 }),
      page: fc.integer({ min: 1, max: 3 }),
    },
    { requiredKeys: ['words', 'language', 'perPage', 'page'] },
  )
  .map(({ span, ...search }) => ({
    ...search,
    to: span === undefined ? undefined : (search.from ?? -1) + span,
  }));

let t: TestApp;
let api: ReturnType<typeof eventRequests>;

beforeAll(async () => {
  t = await createTestApp();
  api = eventRequests(t);
});
afterAll(() => t?.close());

/** Events created in order: IDs 1, 2, … */
async function createEvents(events: EventInput[]): Promise<void> {
  for (const event of events) {
    const first = event.nl !== undefined ? 'nl' : 'en';
    const dates = { start_date: dayAt(event.day), end_date: dayAt(event.day) };
    const res = await api
      .create({
        ...dates,
        title: event[first],
        language: first,
        featured: event.featured,
        status: event.draft ? 'draft' : 'publish',
      })
      .expect(201);
    if (first === 'nl' && event.en !== undefined) {
      await api.update(res.body.id, { title: event.en }, 'author', '?language=en').expect(200);
    }
  }
}

/** The model: IDs in start order (then ID) of the events the search finds, per docs/api.md §5.1. */
function expected(events: EventInput[], search: SearchInput): number[] {
  // Without start_date the window starts yesterday (docs/api.md §5.1).
  const from = search.from ?? -1;
  const to = search.to ?? Infinity;
  return events
    .map((event, i) => ({ ...event, id: i + 1 }))
    .filter((event) => {
      if (event.draft || event.day < from || event.day > to) return false;
      if (search.featured !== undefined && event.featured !== search.featured) return false;
      const shown = event[search.language] ?? event[search.language === 'nl' ? 'en' : 'nl'] ?? '';
      const tokens = shown.toLowerCase().split(/[^a-z0-9_]+/);
      return search.words.every((word) => tokens.some((token) => token.startsWith(word)));
    })
    .sort((a, b) => a.day - b.day || a.id - b.id)
    .map((event) => event.id);
}

function queryOf(search: SearchInput): string {
  const params = [`search=${search.words.join('+')}`, `language=${search.language}`];
  if (search.from !== undefined) params.push(`start_date=${dayAt(search.from).slice(0, 10)}`);
  if (search.to !== undefined) params.push(`end_date=${dayAt(search.to).slice(0, 10)}`);
  if (search.featured !== undefined) params.push(`featured=${search.featured}`);
  return params.join('&');
}

/** Every ID and the total as one plan reads them, with the service's own filters. */
async function readWith(search: SearchInput, plan: SearchPlan) {
  const window = eventWindow(
    {
      start_date: search.from === undefined ? undefined : dayAt(search.from).slice(0, 10),
      end_date: search.to === undefined ? undefined : dayAt(search.to).slice(0, 10),
    },
    FixedOffsetZone.utcInstance,
    DateTime.now(),
  );
  const filters = {
    scope: { statuses: ['publish' as const] },
    window,
    search: { words: search.words, language: search.language },
    featured: search.featured,
  };
  const query = eventListQuery(t.dataSource.manager, filters, { searchPlan: plan });
  const rows = await orderEvents(query.clone().select('e.id', 'id'), 'start').getRawMany();
  return {
    ids: rows.map((row: { id: number | string }) => Number(row.id)),
    total: await query.getCount(),
  };
}

it('reads the same pages and totals along the window as from the matches, as the rule says', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventInput, { minLength: 1, maxLength: 14 }),
      fc.array(searchInput, { minLength: 4, maxLength: 8 }),
      async (events, searches) => {
        await t.reset();
        await createEvents(events);
        for (const search of searches) {
          const all = expected(events, search);
          for (const plan of ['matches', 'window'] as const) {
            expect({ plan, ...(await readWith(search, plan)) }).toEqual({
              plan,
              ids: all,
              total: all.length,
            });
          }
          const pages = Math.max(1, Math.ceil(all.length / search.perPage));
          const page = Math.min(search.page, pages);
          const res = await api
            .get(`/events?${queryOf(search)}&per_page=${search.perPage}&page=${page}`)
            .expect(200);
          const offset = (page - 1) * search.perPage;
          expect({
            ids: res.body.events.map((e: { id: number }) => e.id),
            total: res.headers['x-total'],
          }).toEqual({
            ids: all.slice(offset, offset + search.perPage),
            total: String(all.length),
          });
        }
      },
    ),
    {
      numRuns: Number(process.env.PROPERTY_RUNS ?? 6),
      seed: process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined,
    },
  );
}, 600_000);

describe('on a seeded corpus', () => {
  const EVENTS = 10_000;
  const words = ['muzikaal', 'maastricht', 'aanvang'];

  beforeAll(async () => {
    await t.reset();
    await seedDatabase(
      t.dataSource,
      makePlan({ events: EVENTS, venues: 50, organizers: 50, categories: 5, tags: 10, seed: 7 }),
      { batchEvents: 2000 },
    );
  }, 300_000);

  it('answers each search as both plans read it, whichever the service chooses', async () => {
    if (t.engine === 'sqlite') {
      // Words on each side of the choice (src/events/search-plan.ts): a few texts, more than a
      // few but fewer than a tenth of the table, more than a tenth of the table.
      const texts = await Promise.all(
        words.map(async (word) => {
          const [{ n }] = await t.dataSource.query(textMatchCountSql(EVENT_TEXTS), [
            textQuery('sqlite', [word]),
          ]);
          return Number(n);
        }),
      );
      expect(texts.some((n) => n <= 200)).toBe(true);
      expect(texts.some((n) => n > 200 && n * 10 < EVENTS)).toBe(true);
      expect(texts.some((n) => n * 10 >= EVENTS)).toBe(true);
    }
    for (const word of words) {
      for (const [from, to] of [
        [undefined, undefined],
        [-1_900, 1_900],
      ] as const) {
        const search: SearchInput = {
          words: [word],
          from,
          to,
          language: 'nl',
          perPage: 10,
          page: 1,
        };
        const all = (await readWith(search, 'matches')).ids;
        expect(await readWith(search, 'window')).toEqual({ ids: all, total: all.length });
        for (const page of [1, 3]) {
          if (page > 1 && all.length <= 20) continue;
          const res = await api.get(`/events?${queryOf(search)}&page=${page}`).expect(200);
          expect({
            ids: res.body.events.map((e: { id: number }) => e.id),
            total: res.headers['x-total'],
          }).toEqual({ ids: all.slice((page - 1) * 10, page * 10), total: String(all.length) });
        }
      }
    }
  }, 300_000);
});
