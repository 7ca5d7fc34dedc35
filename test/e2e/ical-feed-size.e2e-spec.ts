import * as feedTag from '../../src/ical/ical-feed-tag';
import { dayAt, eventRequests } from './helpers/events';
import { readCalendar, icsRequest } from './helpers/ical';
import { API, createTestApp, TestApp, UserName } from './helpers/test-app';

/*
 * A feed holding more than ICAL_MAX_EVENTS events is refused with 400
 * rest_feed_too_large before a byte of calendar is sent (docs/api.md §14).
 */

const LIMIT = 3;

let t: TestApp;
let api: ReturnType<typeof eventRequests>;

beforeAll(async () => {
  t = await createTestApp({ ICAL_MAX_EVENTS: String(LIMIT) });
  api = eventRequests(t);
});
afterAll(() => t.close());
beforeEach(() => t.reset());

function ics(path: string, user?: UserName, headers: Record<string, string> = {}) {
  return icsRequest(t, path, user, headers);
}

/** `count` published events, one a day from tomorrow, the first `jazz` of them in category Jazz. */
async function events(count: number, jazz = 0): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api
      .create(
        {
          title: `Avond ${i}`,
          status: 'publish',
          start_date: dayAt(i + 1, '20:00:00'),
          end_date: dayAt(i + 1, '22:00:00'),
          ...(i < jazz ? { categories: ['Jazz'] } : {}),
        },
        'editor',
      )
      .expect(201);
    ids.push((res.body as { id: number }).id);
  }
  return ids;
}

const tooLarge = (events: number, message: string) => ({
  code: 'rest_feed_too_large',
  message,
  data: { status: 400, events, limit: LIMIT },
});

const EN = (events: number) =>
  `This iCalendar feed would hold ${events} events, more than the limit of ${LIMIT}; narrow it with a shorter window (start_date, end_date), categories or venue.`;
const NL = (events: number) =>
  `Deze iCalendar-feed zou ${events} evenementen bevatten, meer dan de limiet van ${LIMIT}; beperk hem met een korter venster (start_date, end_date), categories of venue.`;

describe('a feed over ICAL_MAX_EVENTS', () => {
  it('answers 400 rest_feed_too_large in the language asked, with no calendar', async () => {
    await events(LIMIT + 1);
    for (const [path, message] of [
      ['/events.ics', NL(LIMIT + 1)],
      ['/events.ics?language=nl', NL(LIMIT + 1)],
      ['/events.ics?language=en', EN(LIMIT + 1)],
    ] as const) {
      const res = await ics(path).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.etag).toBeUndefined();
      expect(res.body).toEqual(tooLarge(LIMIT + 1, message));
    }
  });

  it('holds for a signed-in caller too', async () => {
    await events(LIMIT + 1);
    const res = await ics('/events.ics?language=en', 'editor').expect(400);
    expect(res.body).toEqual(tooLarge(LIMIT + 1, EN(LIMIT + 1)));
  });

  it('is refused for HEAD as for GET', async () => {
    await events(LIMIT + 1);
    const res = await t.http().head(`${API}/events.ics`).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });
});

describe('a feed at or under ICAL_MAX_EVENTS', () => {
  it('at the limit: 200 with every event', async () => {
    const ids = await events(LIMIT);
    const res = await ics('/events.ics').expect(200);
    expect(readCalendar(res).events).toHaveLength(LIMIT);
    expect(ids).toHaveLength(LIMIT);
  });

  it('narrowed by a category or a window: 200 with the events that match', async () => {
    await events(LIMIT + 2, 2);
    const byCategory = await ics('/events.ics?categories=jazz').expect(200);
    expect(readCalendar(byCategory).events.map((e) => e.SUMMARY)).toEqual(['Avond 0', 'Avond 1']);
    const window = `start_date=${dayAt(1).slice(0, 10)}&end_date=${dayAt(2).slice(0, 10)}`;
    const byWindow = await ics(`/events.ics?${window}`).expect(200);
    expect(readCalendar(byWindow).events.map((e) => e.SUMMARY)).toEqual(['Avond 0', 'Avond 1']);
  });
});

describe('the limit and If-None-Match', () => {
  it('a feed that grew over the limit answers 400 to the ETag of its last 200, never 304', async () => {
    await events(LIMIT);
    const first = await ics('/events.ics').expect(200);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    await ics('/events.ics', undefined, { 'If-None-Match': etag }).expect(304);
    await api
      .create(
        {
          title: 'Nog een',
          status: 'publish',
          start_date: dayAt(9, '20:00:00'),
          end_date: dayAt(9, '22:00:00'),
        },
        'editor',
      )
      .expect(201);
    for (const tag of [etag, '*']) {
      const res = await ics('/events.ics?language=en', undefined, { 'If-None-Match': tag }).expect(
        400,
      );
      expect(res.body).toEqual(tooLarge(LIMIT + 1, EN(LIMIT + 1)));
    }
    // Asked again (its stamp now kept): still refused, still not a 304.
    const again = await ics('/events.ics', undefined, { 'If-None-Match': etag }).expect(400);
    expect(again.body).toEqual(tooLarge(LIMIT + 1, NL(LIMIT + 1)));
  });
});

describe('what a refusal costs', () => {
  it('is decided by the count alone: the content stamp (every event\'s change rows) is not read', async () => {
    await events(LIMIT + 2);
    const stamp = jest.spyOn(feedTag, 'feedContentStamp');
    try {
      const res = await ics('/events.ics?language=en').expect(400);
      expect(res.body).toEqual(tooLarge(LIMIT + 2, EN(LIMIT + 2)));
      expect(stamp).not.toHaveBeenCalled();
      // Under the limit, the stamp is read as before.
      await ics(`/events.ics?end_date=${dayAt(2).slice(0, 10)}`).expect(200);
      expect(stamp).toHaveBeenCalledTimes(1);
    } finally {
      stamp.mockRestore();
    }
  });
});
