import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/*
 * A run of creates in an atomic batch counts each operation once against the
 * client's RATE_LIMIT_PER_MINUTE, as the same operations through their routes
 * (docs/api.md §18), also when it fails and then runs operation by operation;
 * past the budget the operation answers 429 as alone.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '8' });
});
afterAll(() => t.close());
beforeEach(() => t.reset());

/** Each test is a client of its own (the budget is per client address; loopback proxies are trusted). */
let client = 0;
beforeEach(() => void client++);
const from = () => ({ 'X-Forwarded-For': `203.0.113.${client}` });
const auth = () => ({ Host: 'api.test', Authorization: t.auth.editor, ...from() });
const create = (day: number, extra: Record<string, unknown> = {}) => ({
  method: 'POST',
  path: '/events',
  body: {
    title: `Concert ${day}`,
    start_date: `2090-05-1${day} 20:00:00`,
    end_date: `2090-05-1${day} 22:00:00`,
    ...extra,
  },
});
const batch = (operations: unknown[]) =>
  t.http().post(`${API}/batch`).set(auth()).send({ atomic: true, operations }).expect(200);
/** How many more requests the budget takes: reads until the first 429. */
const left = async () => {
  for (let n = 0; n < 10; n++) {
    const res = await t.http().get(`${API}/categories`).set(from());
    if (res.status === 429) return n;
  }
  return Infinity;
};

it('counts each create of a run once, the batch request once more', async () => {
  const answer = await batch([create(0), create(1), create(2)]);
  expect(answer.body.failed_operation).toBeNull();
  // 8 − (1 + 3) = 4.
  expect(await left()).toBe(4);
});

it('counts a failing run as its operations through their routes: up to the failure', async () => {
  // The second create fails validation: the batch, the first and the second count.
  const answer = await batch([create(0), create(1, { end_date: '1999-01-01 00:00:00' }), create(2)]);
  expect(answer.body.failed_operation).toBe(1);
  expect(await left()).toBe(5);
});

it('answers 429 for the first create past the budget, as alone', async () => {
  const answer = await batch([0, 1, 2, 3, 4, 5, 6, 7].map((day) => create(day)));
  // The batch is hit 1, its creates hits 2 to 9: the eighth is past the budget of 8.
  expect(answer.body.failed_operation).toBe(7);
  expect(answer.body.results[7]).toEqual({
    status: 429,
    headers: { 'retry-after': expect.stringMatching(/^\d+$/) },
    body: errorBody('rest_too_many_requests', 429),
  });
  expect(answer.body.results[0].status).toBe(424);
  const events = (await t.dataSource.query('SELECT COUNT(*) AS n FROM events')) as [{ n: unknown }];
  expect(Number(events[0].n)).toBe(0);
});
