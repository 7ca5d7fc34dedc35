import { DateTime, Settings } from 'luxon';
import * as feedTag from '../../src/ical/ical-feed-tag';
import { dayAt, eventRequests } from './helpers/events';
import { readCalendar, icsRequest } from './helpers/ical';
import { API, createTestApp, TestApp, UserName } from './helpers/test-app';

/*
 * A feed's ETag (docs/api.md §11, §14) changes when its bytes change, and
 * only then: writes elsewhere leave it (and a conditional poll's 304) as it
 * is; a change of anything the feed shows, or of which events it holds,
 * gives a new one.
 */

let t: TestApp;
let api: ReturnType<typeof eventRequests>;

beforeAll(async () => {
  t = await createTestApp();
  api = eventRequests(t);
});
afterAll(() => t.close());
beforeEach(() => t.reset());

function ics(path: string, user?: UserName, headers: Record<string, string> = {}) {
  return icsRequest(t, path, user, headers);
}

/** An answer's ETag and its body as text (checked and parsed as a calendar). */
async function snapshot(path: string): Promise<{ etag: string; text: string }> {
  const res = await ics(path).expect(200);
  readCalendar(res);
  return { etag: res.headers.etag as string, text: (res.body as Buffer).toString('utf8') };
}

function as(user: UserName) {
  return t.auth[user];
}

const patch = (path: string, body: object) =>
  t.http().patch(`${API}${path}`).set('Authorization', as('editor')).send(body).expect(200);
const post = (path: string, body: object) =>
  t.http().post(`${API}${path}`).set('Authorization', as('editor')).send(body).expect(201);

/** A Jazz event at a venue with an organizer, and the IDs of what it links. */
async function listedEvent(days = 3) {
  const venue = (await api.createVenue({ venue: 'Paradiso', city: 'Amsterdam' }, 'editor'))
    .body as { id: number };
  const organizer = (await api.createOrganizer({ organizer: 'Mojo' }, 'editor')).body as {
    id: number;
  };
  const created = await api
    .create(
      {
        title: 'Jazzavond',
        start_date: dayAt(days, '20:00:00'),
        end_date: dayAt(days, '22:00:00'),
        venue: venue.id,
        organizer: [organizer.id],
        categories: ['Jazz'],
      },
      'editor',
    )
    .expect(201);
  const event = created.body as { id: number; categories: Array<{ id: number }> };
  return {
    id: event.id,
    venueId: venue.id,
    organizerId: organizer.id,
    categoryId: event.categories[0].id,
  };
}

const FEEDS = ['/events.ics', '/events.ics?categories=jazz'];

describe('writes the feed does not show', () => {
  it('keep the ETag, the bytes and the 304 of a conditional poll', async () => {
    await listedEvent();
    const before = await Promise.all(FEEDS.map(snapshot));
    // A tag, an unlinked venue and organizer, an event outside the category and after the window.
    await post('/tags', { name: 'Ongebruikt' });
    const venue = (await api.createVenue({ venue: 'Elders' }, 'editor')).body as { id: number };
    await patch(`/venues/${venue.id}`, { venue: 'Elders 2' });
    await api.createOrganizer({ organizer: 'Niemand' }, 'editor').expect(201);
    await api
      .create({ title: 'Ver weg', start_date: dayAt(1000), end_date: dayAt(1000) }, 'editor')
      .expect(201);
    await api
      .create(
        { title: 'Rock', start_date: dayAt(5), end_date: dayAt(5), categories: ['Rock'] },
        'editor',
      )
      .expect(201);
    const after = await snapshot('/events.ics?categories=jazz');
    expect(after).toEqual(before[1]);
    const poll = await ics('/events.ics?categories=jazz', undefined, {
      'If-None-Match': before[1].etag,
    }).expect(304);
    expect(poll.headers.etag).toBe(before[1].etag);
    // The unfiltered feed holds the new Rock event: it moved.
    expect((await snapshot('/events.ics')).etag).not.toBe(before[0].etag);
  });

  it('keep the ETag of a single event', async () => {
    const { id } = await listedEvent();
    const path = `/events/${id}.ics`;
    const before = await snapshot(path);
    await post('/tags', { name: 'Ongebruikt' });
    await api.createVenue({ venue: 'Elders' }, 'editor').expect(201);
    expect(await snapshot(path)).toEqual(before);
    await ics(path, undefined, { 'If-None-Match': before.etag }).expect(304);
  });
});

describe('the cost of a tag', () => {
  it('reads the aggregates again only after a write, per filters', async () => {
    await listedEvent();
    const aggregates = jest.spyOn(feedTag, 'feedContentStamp');
    try {
      const first = await snapshot(FEEDS[1]);
      expect(await snapshot(FEEDS[1])).toEqual(first);
      await ics(FEEDS[1], undefined, { 'If-None-Match': first.etag }).expect(304);
      expect(aggregates).toHaveBeenCalledTimes(1);
      // Other filters (an editor's scope holds drafts) read their own.
      await ics(FEEDS[1], 'editor').expect(200);
      expect(aggregates).toHaveBeenCalledTimes(2);
      // After a write (one the feed does not show): read again, and the same tag.
      await post('/tags', { name: 'Ongebruikt' });
      await ics(FEEDS[1], undefined, { 'If-None-Match': first.etag }).expect(304);
      expect(aggregates).toHaveBeenCalledTimes(3);
    } finally {
      aggregates.mockRestore();
    }
  });
});

describe('a stamp kept while the data version holds', () => {
  it('is not read again after a minute, and never outlives a linked record\'s change', async () => {
    const { venueId, organizerId } = await listedEvent();
    const aggregates = jest.spyOn(feedTag, 'feedContentStamp');
    const realNow = Date.now.bind(Date);
    let ahead = 0;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + ahead);
    try {
      const first = await snapshot(FEEDS[1]);
      // Two minutes on, no write: the kept stamp answers (the 304 and the 200 alike).
      ahead = 120_000;
      await ics(FEEDS[1], undefined, { 'If-None-Match': first.etag }).expect(304);
      expect(await snapshot(FEEDS[1])).toEqual(first);
      expect(aggregates).toHaveBeenCalledTimes(1);
      // A linked organizer's change, then a linked venue's: each time a new tag, the old one no 304.
      await patch(`/organizers/${organizerId}`, { organizer: 'Mojo Concerts' });
      const second = await snapshot(FEEDS[1]);
      expect(second.etag).not.toBe(first.etag);
      expect(second.text).toContain('Mojo Concerts');
      ahead = 240_000;
      await patch(`/venues/${venueId}`, { venue: 'Melkweg' });
      const third = await snapshot(FEEDS[1]);
      expect(third.etag).not.toBe(second.etag);
      expect(third.text).toContain('Melkweg');
      await ics(FEEDS[1], undefined, { 'If-None-Match': second.etag }).expect(200);
      expect(aggregates).toHaveBeenCalledTimes(3);
    } finally {
      clock.mockRestore();
      aggregates.mockRestore();
    }
  });
});

describe('a change of what a feed shows', () => {
  /** Each write changes the bytes of every feed (and the single event's), and so their ETags. */
  const changes: Array<[string, (ids: Awaited<ReturnType<typeof listedEvent>>) => Promise<void>]> =
    [
      ['the event', async ({ id }) => void (await patch(`/events/${id}`, { title: 'Bluesavond' }))],
      [
        "the venue's name",
        async ({ venueId }) => void (await patch(`/venues/${venueId}`, { venue: 'Melkweg' })),
      ],
      [
        "the venue's address",
        async ({ venueId }) =>
          void (await patch(`/venues/${venueId}`, { address: 'Lijnbaansgracht 234' })),
      ],
      [
        "the organizer's name",
        async ({ organizerId }) =>
          void (await patch(`/organizers/${organizerId}`, { organizer: 'Mojo Concerts' })),
      ],
      [
        "the category's name",
        async ({ categoryId }) =>
          void (await patch(`/categories/${categoryId}`, { name: 'Jazz & Blues' })),
      ],
      [
        'another venue linked',
        async ({ id }) => {
          const other = (await api.createVenue({ venue: 'Bimhuis' }, 'editor')).body as {
            id: number;
          };
          await patch(`/events/${id}`, { venue: other.id });
        },
      ],
    ];

  it.each(changes)('%s gives every feed that holds the event a new ETag', async (_name, change) => {
    const ids = await listedEvent();
    const paths = [...FEEDS, `/events/${ids.id}.ics`];
    const before = await Promise.all(paths.map(snapshot));
    await change(ids);
    const after = await Promise.all(paths.map(snapshot));
    after.forEach((now, i) => {
      expect(now.text).not.toBe(before[i].text);
      expect(now.etag).not.toBe(before[i].etag);
    });
    // The old tag no longer gives a 304.
    await ics(FEEDS[1], undefined, { 'If-None-Match': before[1].etag }).expect(200);
  });
});

describe('a change of which events a feed holds', () => {
  /** How the event leaves, and the feeds it leaves (the unfiltered feed still holds it in another category). */
  const memberships: Array<[string, (id: number) => Promise<unknown>, string[]]> = [
    [
      'moved out of the window',
      (id) => patch(`/events/${id}`, { start_date: dayAt(1000), end_date: dayAt(1000) }),
      FEEDS,
    ],
    ['left the category', (id) => patch(`/events/${id}`, { categories: ['Rock'] }), [FEEDS[1]]],
    [
      'trashed',
      (id) => t.http().delete(`${API}/events/${id}`).set('Authorization', as('editor')).expect(200),
      FEEDS,
    ],
    [
      'deleted for good',
      (id) =>
        t
          .http()
          .delete(`${API}/events/${id}?force=true`)
          .set('Authorization', as('editor'))
          .expect(200),
      FEEDS,
    ],
  ];

  it.each(memberships)('an event %s leaves with a new ETag', async (_name, leave, feeds) => {
    const stays = await listedEvent(4);
    const { id } = await listedEvent(3);
    const before = await Promise.all(feeds.map(snapshot));
    await leave(id);
    const after = await Promise.all(feeds.map(snapshot));
    after.forEach((now, i) => {
      expect(now.text).not.toBe(before[i].text);
      expect(now.etag).not.toBe(before[i].etag);
      expect(now.text).toContain(`UID:${stays.id}@`);
      expect(now.text).not.toContain(`UID:${id}@`);
    });
  });

  it('an event entering the category or the window gives a new ETag', async () => {
    await listedEvent();
    const far = await api
      .create(
        { title: 'Later', start_date: dayAt(1000), end_date: dayAt(1000), categories: ['Rock'] },
        'editor',
      )
      .expect(201);
    const id = (far.body as { id: number }).id;
    const before = await snapshot(FEEDS[1]);
    await patch(`/events/${id}`, { categories: ['Jazz'] });
    // Still after the window: the bytes and the tag stay.
    expect(await snapshot(FEEDS[1])).toEqual(before);
    await patch(`/events/${id}`, { start_date: dayAt(6), end_date: dayAt(6) });
    const after = await snapshot(FEEDS[1]);
    expect(after.text).toContain(`UID:${id}@`);
    expect(after.etag).not.toBe(before.etag);
  });

  it('the default window moves at midnight (site zone): so does the tag', async () => {
    const now = Date.now();
    // An event 30 days back is the first day of the default window; the next day it is out.
    await api
      .create(
        { title: 'Oud', start_date: dayAt(-30, '12:00:00'), end_date: dayAt(-30, '13:00:00') },
        'editor',
      )
      .expect(201);
    const today = await snapshot('/events.ics');
    expect(today.text).toContain('SUMMARY:Oud');
    try {
      Settings.now = () => DateTime.fromMillis(now).plus({ days: 1 }).toMillis();
      const tomorrow = await snapshot('/events.ics');
      expect(tomorrow.text).not.toContain('SUMMARY:Oud');
      expect(tomorrow.etag).not.toBe(today.etag);
    } finally {
      Settings.now = () => Date.now();
    }
  });
});

describe('SEQUENCE and LAST-MODIFIED follow LOCATION and ORGANIZER', () => {
  /** The one VEVENT of a single event's calendar and of the feed, which must agree. */
  async function shown(id: number, query = ''): Promise<Record<string, any>> {
    const single = readCalendar(await ics(`/events/${id}.ics${query}`).expect(200)).events[0];
    const feed = readCalendar(await ics(`/events.ics${query}`).expect(200)).events;
    expect(feed).toEqual([single]);
    return single;
  }

  const wireNow = () => DateTime.utc().toFormat('yyyy-MM-dd HH:mm:ss');
  /** LAST-MODIFIED has whole seconds: a change one second later must show. */
  const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1_050));

  it('move with every change of the linked venue or organizer, and never back', async () => {
    const { id, venueId, organizerId } = await listedEvent();
    const record = (await api.get(`/events/${id}`).expect(200)).body as { modified_utc: string };
    const first = await shown(id);
    expect(first).toMatchObject({
      SEQUENCE: 0,
      'LAST-MODIFIED': { utc: record.modified_utc },
      DTSTAMP: { utc: record.modified_utc },
      LOCATION: 'Paradiso, Amsterdam',
      ORGANIZER: { CN: 'Mojo', value: expect.any(String) },
    });
    const steps: Array<[string, () => Promise<unknown>, Record<string, unknown>]> = [
      [
        'venue renamed',
        () => patch(`/venues/${venueId}`, { venue: 'Melkweg' }),
        { LOCATION: 'Melkweg, Amsterdam' },
      ],
      [
        'venue address',
        () => patch(`/venues/${venueId}`, { address: 'Lijnbaansgracht 234' }),
        { LOCATION: 'Melkweg, Lijnbaansgracht 234, Amsterdam' },
      ],
      [
        'organizer renamed',
        () => patch(`/organizers/${organizerId}`, { organizer: 'Mojo Concerts' }),
        { ORGANIZER: { CN: 'Mojo Concerts', value: expect.any(String) } },
      ],
      ['organizer unpublished', () => patch(`/organizers/${organizerId}`, { status: 'draft' }), {}],
      [
        'venue trashed',
        () =>
          t
            .http()
            .delete(`${API}/venues/${venueId}`)
            .set('Authorization', as('editor'))
            .expect(200),
        {},
      ],
    ];
    let before = first;
    for (const [step, change, fields] of steps) {
      await nextSecond();
      const at = wireNow();
      await change();
      const now = await shown(id);
      expect({ step, ...now }).toMatchObject({
        step,
        ...fields,
        SEQUENCE: (before.SEQUENCE as number) + 1,
      });
      expect({ step, modified: now['LAST-MODIFIED'].utc >= at }).toEqual({ step, modified: true });
      expect(now.DTSTAMP).toEqual(now['LAST-MODIFIED']);
      before = now;
    }
    // What the changes hid is gone from the VEVENT; its versions only went up.
    expect(before).not.toHaveProperty('LOCATION');
    expect(before).not.toHaveProperty('ORGANIZER');
    expect(before.SEQUENCE).toBe(steps.length);
  });

  it('relinking moves them as an edit of the event does', async () => {
    const { id } = await listedEvent();
    const later = (await api.createVenue({ venue: 'Bimhuis' }, 'editor')).body as { id: number };
    const before = await shown(id);
    await nextSecond();
    await patch(`/events/${id}`, { venue: later.id });
    const after = await shown(id);
    expect(after).toMatchObject({ LOCATION: 'Bimhuis', SEQUENCE: 1 });
    expect(after['LAST-MODIFIED'].utc > before['LAST-MODIFIED'].utc).toBe(true);
  });

  it("leave the event's JSON record (and its modified time) as they were", async () => {
    const { id, venueId } = await listedEvent();
    const before = (await api.get(`/events/${id}`).expect(200)).body as Record<string, any>;
    await nextSecond();
    await patch(`/venues/${venueId}`, { venue: 'Melkweg' });
    const after = (await api.get(`/events/${id}`).expect(200)).body as Record<string, any>;
    expect(after.modified_utc).toBe(before.modified_utc);
    expect(after.venue.venue).toBe('Melkweg');
  });

  it('move for a blanked password-protected event too, which stays CLASS:PUBLIC', async () => {
    const venue = (await api.createVenue({ venue: 'Paradiso' }, 'editor')).body as { id: number };
    const created = await api
      .create(
        {
          title: 'Geheim',
          start_date: dayAt(2, '20:00:00'),
          end_date: dayAt(2, '22:00:00'),
          venue: venue.id,
          password: 'sesam',
        },
        'editor',
      )
      .expect(201);
    const id = (created.body as { id: number }).id;
    const feed = async () =>
      readCalendar(await ics('/events.ics').expect(200)).events as Array<Record<string, any>>;
    const [before] = await feed();
    expect(Object.keys(before).sort()).toEqual(
      ['CLASS', 'DTEND', 'DTSTAMP', 'DTSTART', 'SEQUENCE', 'SUMMARY', 'UID', 'URL'].sort(),
    );
    expect(before).toMatchObject({ UID: `${id}@calendar.test`, CLASS: 'PUBLIC', SEQUENCE: 0 });
    await nextSecond();
    await patch(`/venues/${venue.id}`, { venue: 'Melkweg' });
    const [after] = await feed();
    expect(after).toMatchObject({ CLASS: 'PUBLIC', SEQUENCE: 1 });
    expect(after.DTSTAMP.utc > before.DTSTAMP.utc).toBe(true);
    // With the password, the full VEVENT: the same versions.
    const [full] = readCalendar(await ics('/events.ics?password=sesam').expect(200)).events;
    expect(full).toMatchObject({
      LOCATION: 'Melkweg',
      SEQUENCE: 1,
      'LAST-MODIFIED': after.DTSTAMP,
    });
  });
});

describe('a series', () => {
  /** Weekly on Tuesday in March 2027; the feed's window holds its second date only (not the series' own row). */
  const WINDOW = '/events.ics?start_date=2027-03-08&end_date=2027-03-12';

  async function series() {
    const created = await api
      .create(
        {
          title: 'Koor',
          start_date: '2027-03-02 19:00:00',
          end_date: '2027-03-02 21:00:00',
          timezone: 'Europe/Amsterdam',
          recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270331'],
        },
        'editor',
      )
      .expect(201);
    const seriesId = (created.body as { id: number }).id;
    const later = await api
      .get('/events?start_date=2027-03-20&end_date=2027-03-31&per_page=50')
      .expect(200);
    const outside = (later.body.events as Array<{ id: number; start_date: string }>).find((e) =>
      e.start_date.startsWith('2027-03-23'),
    );
    return { seriesId, outside: outside!.id };
  }

  it.each([
    ['edited', (id: number) => patch(`/events/${id}`, { title: 'Koor (extra)' }), 'RECURRENCE-ID'],
    [
      'trashed',
      (id: number) =>
        t.http().delete(`${API}/events/${id}`).set('Authorization', as('editor')).expect(200),
      'EXDATE',
    ],
  ])(
    'an occurrence outside the window %s: the series written in the feed changes, so does the tag',
    async (_name, change, line) => {
      const { outside } = await series();
      const before = await snapshot(WINDOW);
      expect(before.text).toContain('RRULE:');
      expect(before.text).not.toContain(`${line};`);
      await post('/tags', { name: 'Ongebruikt' });
      expect(await snapshot(WINDOW)).toEqual(before);
      await change(outside);
      const after = await snapshot(WINDOW);
      expect(after.text).toContain(`${line};`);
      expect(after.etag).not.toBe(before.etag);
    },
  );
});
