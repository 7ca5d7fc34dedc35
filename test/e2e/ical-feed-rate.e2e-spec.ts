import { rawBody } from './helpers/ical';
import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/*
 * iCalendar feeds count against a per-client budget of their own
 * (ICAL_RATE_LIMIT_PER_MINUTE) inside the global one (docs/api.md §14).
 */

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '1000', ICAL_RATE_LIMIT_PER_MINUTE: '2' });
});
afterAll(() => t.close());

const feed = () => t.http().get(`${API}/events.ics`).buffer(true).parse(rawBody);

it('answers 429 to the feed past its budget, while the rest of the API still answers', async () => {
  await feed().expect(200);
  await feed().expect(200);
  const refused = await feed().expect(429);
  expect(refused.body).toEqual(errorBody('rest_too_many_requests', 429));
  expect(refused.headers['retry-after']).toMatch(/^\d+$/);
  const single = await t
    .http()
    .get(`${API}/events.ics?categories=jazz`)
    .buffer(true)
    .parse(rawBody);
  expect(single.status).toBe(429);
  await t.http().get(`${API}/events`).expect(200);
  await t.http().get(`${API}/events`).expect(200);
  await t.http().get(`${API}/events`).expect(200);
});
