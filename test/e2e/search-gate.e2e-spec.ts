import { SearchGate } from '../../src/common/limits/search-gate';
import { dayAt, eventRequests } from './helpers/events';
import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/*
 * SEARCH_MAX_CONCURRENT full-text searches of an instance at once
 * (SearchGate, docs/api.md §5.1): a search that finds no turn within
 * SEARCH_WAIT_MS is 503 with Retry-After, in the request's language; every
 * other request goes on as before, and a search that found a turn in time is
 * answered as always.
 */

const WAIT_MS = 150;

let t: TestApp;
let api: ReturnType<typeof eventRequests>;

beforeAll(async () => {
  t = await createTestApp({ SEARCH_MAX_CONCURRENT: '1', SEARCH_WAIT_MS: String(WAIT_MS) });
  api = eventRequests(t);
  await api
    .create({ title: 'Jazzavond in de kelder', start_date: dayAt(1), end_date: dayAt(1) })
    .expect(201);
  await t
    .http()
    .post(`${API}/venues`)
    .set('Authorization', t.auth.editor)
    .send({ venue: 'Jazzkelder' })
    .expect(201);
});
afterAll(() => t?.close());

/** Holds the instance's one search turn until the returned function is called. */
async function holdTheTurn(): Promise<() => Promise<void>> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const run = t.app.get(SearchGate).run(true, () => held);
  await new Promise((resolve) => setImmediate(resolve));
  return async () => {
    release();
    await run;
  };
}

describe('with every search turn taken', () => {
  it('answers searches 503 with Retry-After in the language asked; lists, reads and feeds without search as always', async () => {
    const release = await holdTheTurn();
    try {
      const cases: Array<[string, string]> = [
        ['/events?search=jazz', 'Er lopen te veel zoekopdrachten; probeer het zo opnieuw.'],
        [
          '/events?search=jazz&language=en',
          'Too many searches are running; try again in a moment.',
        ],
        [
          '/venues?search=jazz&language=en',
          'Too many searches are running; try again in a moment.',
        ],
        ['/organizers?search=jazz', 'Er lopen te veel zoekopdrachten; probeer het zo opnieuw.'],
        [
          '/events.ics?search=jazz&language=en',
          'Too many searches are running; try again in a moment.',
        ],
      ];
      for (const [path, message] of cases) {
        const started = Date.now();
        const res = await t.http().get(`${API}${path}`).expect(503);
        expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 10);
        expect(res.body).toEqual(errorBody('rest_service_unavailable', 503));
        expect(res.body.message).toBe(message);
        expect(res.headers['retry-after']).toBe('1');
      }
      // Words the search leaves out (under three characters) make no search.
      for (const path of ['/events', '/events?search=de', '/venues', '/events.ics', '/events/1']) {
        await t.http().get(`${API}${path}`).expect(200);
      }
    } finally {
      await release();
    }
    const found = await api.get('/events?search=jazz').expect(200);
    expect(found.body.events.map((e: { id: number }) => e.id)).toEqual([1]);
  });

  it('lets a feed whose first byte is out wait for its turns instead of cutting it off', async () => {
    const feed = `${API}/events.ics?search=jazz`;
    // The feed's total and content stamp are kept from this first answer: the next one
    // starts streaming at once and then reads its search in turns.
    const first = await t.http().get(feed).expect(200);
    const release = await holdTheTurn();
    const answered = t
      .http()
      .get(feed)
      .then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 3 * WAIT_MS));
    await release();
    const res = await answered;
    expect(res.status).toBe(200);
    expect(res.text).toBe(first.text);
    expect(res.text).toContain('SUMMARY:Jazzavond in de kelder');
  });

  it('answers a search that gets the turn within the wait as always', async () => {
    const release = await holdTheTurn();
    const waiting = t.http().get(`${API}/venues?search=jazzkelder`);
    const answered = waiting.then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS / 3));
    await release();
    const res = await answered;
    expect(res.status).toBe(200);
    expect(res.body.venues.map((v: { venue: string }) => v.venue)).toEqual(['Jazzkelder']);
  });
});
