import { get as httpGet, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { EventRecordsService } from '../../src/events/event-records.service';
import { IcalFeedReader } from '../../src/ical/ical-feed-reader';
import { IcalFeedService } from '../../src/ical/ical-feed.service';
import { apiUrl } from './helpers/content';
import { dayAt, eventRequests } from './helpers/events';
import { Calendar, readCalendar, utcTime, icsRequest } from './helpers/ical';
import { API, createTestApp, errorBody, TestApp, UserName } from './helpers/test-app';

/*
 * iCalendar feeds (docs/api.md §14): every answer is checked byte by byte for
 * RFC 5545's line rules and parsed with ical.js, and every property is
 * compared with the JSON record of the same event.
 */

let t: TestApp;
let api: ReturnType<typeof eventRequests>;

beforeAll(async () => {
  t = await createTestApp();
  api = eventRequests(t);
});
afterAll(() => t.close());
beforeEach(() => {
  t.app.get(IcalFeedService).batchSize = 500;
  return t.reset();
});

function ics(path: string, user?: UserName, headers: Record<string, string> = {}) {
  return icsRequest(t, path, user, headers);
}

async function calendar(path: string, user?: UserName): Promise<Calendar> {
  return readCalendar(await ics(path, user).expect(200));
}

/** The VEVENTs of an answer as the bytes it sent. */
async function veventBytes(path: string, user?: UserName): Promise<string[]> {
  const text = ((await ics(path, user).expect(200)).body as Buffer).toString('utf8');
  return text.match(/BEGIN:VEVENT\r\n[\s\S]*?END:VEVENT\r\n/g) ?? [];
}

async function json(path: string, user?: UserName): Promise<Record<string, any>> {
  return (await api.get(path, user).expect(200)).body as Record<string, any>;
}

/** Every ID the JSON list gives for a query, following its pages. */
async function listedIds(query: string): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const body = await json(`/events?${query}&per_page=50&page=${page}`);
    ids.push(...(body.events as Array<{ id: number }>).map((e) => e.id));
    if (!body.next_rest_url) return ids;
  }
}

const uid = (id: number) => `${id}@calendar.test`;

/** The VEVENT a full record gives (docs/api.md §14), from the JSON record. */
function expectedVevent(record: Record<string, any>, fields: Record<string, unknown>) {
  return {
    UID: uid(record.id),
    DTSTAMP: utcTime(record.modified_utc),
    SEQUENCE: 0,
    SUMMARY: record.title,
    DTSTART: utcTime(record.utc_start_date),
    DTEND: utcTime(record.utc_end_date),
    URL: record.url,
    CREATED: utcTime(record.date_utc),
    'LAST-MODIFIED': utcTime(record.modified_utc),
    STATUS: 'CONFIRMED',
    CLASS: 'PUBLIC',
    ...fields,
  };
}

describe('a full event, compared with its JSON record', () => {
  const title = `Jazz, blues; more \\ ${'🎷'.repeat(40)} end`;

  async function fullEvent() {
    const venue = await api
      .createVenue({
        venue: 'Paradiso',
        address: 'Weteringschans 6',
        city: 'Amsterdam',
        zip: '1017 SG',
        country: 'Nederland',
        geo_lat: 52.3622,
        geo_lng: 4.8838,
      })
      .expect(201);
    const mojo = await api.createOrganizer({ organizer: 'Mojo; Concerts', email: 'info@mojo.nl' });
    const other = await api.createOrganizer({ organizer: 'Second', website: 'https://2.example' });
    const created = await api
      .create(
        {
          title,
          description:
            '<p>Line one, with <b>bold</b> &amp; more;</p><ul><li>first</li><li>second \\ back</li></ul>Last<br>line',
          start_date: dayAt(20, '20:00:00'),
          end_date: dayAt(20, '23:30:00'),
          timezone: 'Europe/Amsterdam',
          venue: venue.body.id,
          organizer: [mojo.body.id, other.body.id],
          categories: ['Jazz', 'R&B; Soul \\ Funk'],
          tags: ['Free'],
        },
        'editor',
      )
      .expect(201);
    await api
      .update(
        created.body.id,
        { title: 'Jazzavond (EN)', description: 'English\ntext' },
        'editor',
        '?language=en',
      )
      .expect(200);
    return created.body.id as number;
  }

  it('has every property, exactly as the JSON record says, in both languages', async () => {
    const id = await fullEvent();
    for (const language of ['nl', 'en'] as const) {
      const record = await json(`/events/${id}?language=${language}`);
      const feed = await calendar(`/events.ics?language=${language}`);
      const single = await calendar(`/events/${id}.ics?language=${language}`);
      const bySlug = await calendar(`/events/by-slug/${record.slug}.ics?language=${language}`);
      const expected = expectedVevent(record, {
        SEQUENCE: 1,
        DTSTART: {
          tzid: 'Europe/Amsterdam',
          local: record.start_date,
          utc: record.utc_start_date,
        },
        DTEND: { tzid: 'Europe/Amsterdam', local: record.end_date, utc: record.utc_end_date },
        DESCRIPTION:
          language === 'nl'
            ? 'Line one, with bold & more;\n\n- first\n- second \\ back\n\nLast\nline'
            : 'English\ntext',
        LOCATION: 'Paradiso, Weteringschans 6, Amsterdam, 1017 SG, Nederland',
        GEO: [52.3622, 4.8838],
        ORGANIZER: { CN: 'Mojo; Concerts', value: 'mailto:info@mojo.nl' },
        CATEGORIES: ['Jazz', 'R&B; Soul \\ Funk'],
      });
      expect(record.title).toBe(language === 'nl' ? title : 'Jazzavond (EN)');
      for (const cal of [feed, single, bySlug]) {
        expect(cal.props).toEqual({
          VERSION: '2.0',
          PRODID: '-//Calendar Events Service//calendar/events/v1//EN',
          CALSCALE: 'GREGORIAN',
          METHOD: 'PUBLISH',
          'X-WR-CALNAME': language === 'nl' ? 'Evenementen' : 'Events',
          'X-WR-TIMEZONE': 'UTC',
        });
        expect(cal.zones).toEqual([{ tzid: 'Europe/Amsterdam', parts: ['daylight', 'standard'] }]);
        expect(cal.events).toEqual([expected]);
      }
      // The feed's lean writer and the single read's record writer give the same bytes.
      expect(await veventBytes(`/events.ics?language=${language}`)).toEqual(
        await veventBytes(`/events/${id}.ics?language=${language}`),
      );
    }
  });

  it('escapes TEXT and folds the long emoji title at 75 octets, never inside a character', async () => {
    const id = await fullEvent();
    const res = await ics(`/events/${id}.ics`).expect(200);
    const text = (res.body as Buffer).toString('utf8');
    const at = text.indexOf('SUMMARY:');
    const summary = text.slice(at, text.indexOf('\r\nDTSTART', at));
    // Folded (the title is 170 octets) and escaped.
    expect(summary.split('\r\n ').length).toBeGreaterThan(2);
    expect(summary.replace(/\r\n /g, '')).toBe(
      `SUMMARY:Jazz\\, blues\\; more \\\\ ${'🎷'.repeat(40)} end`,
    );
    expect(text).toContain('CATEGORIES:Jazz,R&B\\; Soul \\\\ Funk\r\n');
    expect(text).toContain('ORGANIZER;CN="Mojo; Concerts":mailto:info@mojo.nl\r\n');
    readCalendar(res);
  });
});

describe('dates', () => {
  it('writes all-day events as DATE with the exclusive next day as end', async () => {
    const created = await api
      .create({
        title: 'Festival',
        start_date: dayAt(3, '00:00:00'),
        end_date: dayAt(5, '00:00:00'),
        all_day: true,
        timezone: 'Europe/Amsterdam',
      })
      .expect(201);
    const record = await json(`/events/${created.body.id}`);
    const cal = await calendar(`/events/${created.body.id}.ics`);
    expect(cal.events[0].DTSTART).toEqual({ date: record.start_date.slice(0, 10) });
    expect(cal.events[0].DTEND).toEqual({
      date: DateTime.fromISO(record.end_date.slice(0, 10)).plus({ days: 1 }).toISODate(),
    });
    expect(cal.zones).toEqual([]);
  });

  it('writes UTC and UTC±H events as UTC times, without VTIMEZONE', async () => {
    const a = await api
      .create({ title: 'Utc', start_date: dayAt(2, '10:00:00'), end_date: dayAt(2, '11:00:00') })
      .expect(201);
    const b = await api
      .create({
        title: 'Plus two',
        start_date: dayAt(2, '10:00:00'),
        end_date: dayAt(2, '11:00:00'),
        timezone: 'UTC+2',
      })
      .expect(201);
    const cal = await calendar('/events.ics');
    expect(cal.zones).toEqual([]);
    expect(cal.events.map((e) => [e.UID, e.DTSTART, e.DTEND])).toEqual([
      [uid(b.body.id), utcTime(b.body.utc_start_date), utcTime(b.body.utc_end_date)],
      [uid(a.body.id), utcTime(a.body.utc_start_date), utcTime(a.body.utc_end_date)],
    ]);
  });

  it('DST: 19:00 Europe/Amsterdam on each side of the March and October changes', async () => {
    const year = DateTime.utc().year + 1;
    const lastSunday = (month: number) =>
      DateTime.utc(year, month, 1)
        .endOf('month')
        .startOf('day')
        .minus({
          days: DateTime.utc(year, month, 1).endOf('month').weekday % 7,
        });
    const [march, october] = [lastSunday(3), lastSunday(10)];
    const cases = [
      [march.minus({ days: 1 }), '18:00:00'],
      [march.plus({ days: 1 }), '17:00:00'],
      [october.minus({ days: 1 }), '17:00:00'],
      [october.plus({ days: 1 }), '18:00:00'],
    ] as const;
    const ids: number[] = [];
    for (const [day, _utc] of cases) {
      const date = day.toFormat('yyyy-MM-dd');
      const res = await api
        .create({
          title: `DST ${date}`,
          start_date: `${date} 19:00:00`,
          end_date: `${date} 21:00:00`,
          timezone: 'Europe/Amsterdam',
        })
        .expect(201);
      ids.push(res.body.id);
    }
    const cal = await calendar(`/events.ics?start_date=${year}-01-01&end_date=${year}-12-31`);
    expect(cal.zones).toEqual([{ tzid: 'Europe/Amsterdam', parts: ['daylight', 'standard'] }]);
    expect(cal.events.map((e) => [e.UID, e.DTSTART])).toEqual(
      cases.map(([day, utc], i) => [
        uid(ids[i]),
        {
          tzid: 'Europe/Amsterdam',
          local: `${day.toFormat('yyyy-MM-dd')} 19:00:00`,
          utc: `${day.toFormat('yyyy-MM-dd')} ${utc}`,
        },
      ]),
    );
  });
  it('writes a time the zone block does not describe (old rules) in UTC', async () => {
    // Moscow kept UTC+4 from 2011 to 2014; the library's block has today's rules (UTC+3).
    const created = await api
      .create({
        title: 'Moscow 2012',
        start_date: '2012-06-01 19:00:00',
        end_date: '2012-06-01 21:00:00',
        timezone: 'Europe/Moscow',
      })
      .expect(201);
    expect(created.body.utc_start_date).toBe('2012-06-01 15:00:00');
    const cal = await calendar('/events.ics?start_date=2012-01-01&end_date=2012-12-31');
    expect(cal.events.map((e) => [e.DTSTART, e.DTEND])).toEqual([
      [utcTime('2012-06-01 15:00:00'), utcTime('2012-06-01 17:00:00')],
    ]);
  });
});

describe('filtered feeds hold exactly what the JSON list holds', () => {
  it('for a category, a tag, a venue, an organizer and a geo radius, unpaged and in order', async () => {
    const near = await api
      .createVenue({ venue: 'Near', city: 'Amsterdam', geo_lat: 52.37, geo_lng: 4.89 })
      .expect(201);
    const far = await api
      .createVenue({ venue: 'Far', city: 'Rotterdam', geo_lat: 51.92, geo_lng: 4.48 })
      .expect(201);
    const org = await api.createOrganizer({ organizer: 'Org' }).expect(201);
    for (let i = 0; i < 64; i++) {
      // Pairs share a start: the keyset must order and page ties by ID.
      const start = dayAt(1 + Math.floor(i / 2), '18:00:00');
      await api
        .create(
          {
            title: `Event ${i}`,
            start_date: start,
            end_date: start,
            venue: i % 3 === 0 ? near.body.id : i % 3 === 1 ? far.body.id : 0,
            organizer: i % 2 === 0 ? [org.body.id] : [],
            categories: i % 4 === 0 ? ['Jazz'] : [],
            tags: i % 5 === 0 ? ['Free'] : [],
          },
          'editor',
        )
        .expect(201);
    }
    // Small batches: the feed reads many keyset batches.
    t.app.get(IcalFeedService).batchSize = 7;
    const window = `start_date=${dayAt(0).slice(0, 10)}&end_date=${dayAt(40).slice(0, 10)}`;
    const filters = [
      '',
      'categories=jazz',
      'tags=free',
      `venue=${near.body.id}`,
      `organizer=${org.body.id}`,
      'geoloc_lat=52.36&geoloc_lng=4.88&geoloc_radius=5',
      `venue=${far.body.id},${near.body.id}&tags=free`,
      'search=Event 1',
    ];
    for (const filter of filters) {
      const query = `${window}&${filter}`;
      const ids = await listedIds(query);
      const cal = await calendar(`/events.ics?${query}`);
      expect(cal.uids).toEqual(ids.map(uid));
    }
    expect((await calendar(`/events.ics?${window}`)).uids).toHaveLength(64);
    expect((await calendar(`/events.ics?${window}&per_page=5&page=3`)).uids).toHaveLength(64);
  });

  it('leaves out an event deleted between its page of IDs and its rows', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await api
        .create({ title: `E${i}`, start_date: dayAt(1 + i), end_date: dayAt(1 + i) })
        .expect(201);
      ids.push(created.body.id as number);
    }
    t.app.get(IcalFeedService).batchSize = 2;
    const pages = t.app.get(IcalFeedReader);
    const idPage = pages.idPage.bind(pages);
    // The second event's page is read, then the event is deleted before its rows are.
    const spy = jest.spyOn(pages, 'idPage').mockImplementation(async (...args) => {
      const page = await idPage(...args);
      if (page.ids.includes(ids[1])) {
        await api.remove(`/events/${ids[1]}?force=true`, 'editor').expect(200);
      }
      return page;
    });
    try {
      const cal = await calendar('/events.ics');
      expect(cal.uids).toEqual([ids[0], ...ids.slice(2)].map(uid));
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it('stops reading the database when the client goes away mid-stream', async () => {
    for (let i = 0; i < 30; i++) {
      await api.create({ title: `E${i}`, start_date: dayAt(1), end_date: dayAt(1) }).expect(201);
    }
    const ical = t.app.get(IcalFeedService);
    ical.batchSize = 2;
    // Every batch of plain events takes its venues, organizers and terms from here.
    const records = t.app.get(EventRecordsService);
    const linked = records.linkedRecords.bind(records);
    let batches = 0;
    const spy = jest.spyOn(records, 'linkedRecords').mockImplementation(async (...args) => {
      batches++;
      await new Promise((resolve) => setTimeout(resolve, 30));
      return linked(...args);
    });
    try {
      const server = t.app.getHttpServer() as Server;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      await new Promise<void>((resolve, reject) => {
        const req = httpGet(`http://127.0.0.1:${port}${API}/events.ics`, (res) => {
          // Gone once the first event arrived: a batch was read by then, however slow the machine.
          let received = '';
          res.on('data', (chunk: Buffer) => {
            received += chunk.toString('utf8');
            if (!received.includes('BEGIN:VEVENT') || req.destroyed) return;
            req.destroy();
            resolve();
          });
        });
        req.on('error', (error) => (req.destroyed ? resolve() : reject(error)));
      });
      await new Promise((resolve) => setTimeout(resolve, 600));
      // 15 batches in all; the reading stopped after the first one or two.
      expect(batches).toBeGreaterThanOrEqual(1);
      expect(batches).toBeLessThanOrEqual(3);
      await new Promise((resolve) => server.close(resolve));
    } finally {
      spy.mockRestore();
    }
  });

  it('defaults to 30 days back and 24 months ahead', async () => {
    const at = (days: number) =>
      api.create({ title: `At ${days}`, start_date: dayAt(days), end_date: dayAt(days) });
    const ids: Record<number, number> = {};
    for (const days of [-40, -20, 0, 700, 760]) ids[days] = (await at(days).expect(201)).body.id;
    expect((await calendar('/events.ics')).uids).toEqual([ids[-20], ids[0], ids[700]].map(uid));
    expect(await listedIds('')).toEqual([ids[0], ids[700]]);
  });

  it('include: these events, by ID, whatever their dates', async () => {
    const a = await api.create({ title: 'Old', start_date: dayAt(-400), end_date: dayAt(-400) });
    const b = await api.create({ title: 'New', start_date: dayAt(1), end_date: dayAt(1) });
    const cal = await calendar(`/events.ics?include=${b.body.id},${a.body.id}`);
    expect(cal.uids).toEqual([uid(a.body.id), uid(b.body.id)]);
  });
});

describe('ical_url', () => {
  it('on list answers, events, venues, organizers and terms, each leading to its feed', async () => {
    const venue = await api.createVenue({ venue: 'Zaal' }).expect(201);
    const organizer = await api.createOrganizer({ organizer: 'Org' }).expect(201);
    const linked = await api
      .create(
        {
          title: 'Linked',
          start_date: dayAt(1),
          end_date: dayAt(1),
          venue: venue.body.id,
          organizer: [organizer.body.id],
          categories: ['Jazz'],
          tags: ['Free'],
        },
        'editor',
      )
      .expect(201);
    const other = await api.create({ title: 'Other', start_date: dayAt(2), end_date: dayAt(2) });
    const event = await json(`/events/${linked.body.id}`);
    const path = (url: string) =>
      url.replace(/^http:\/\/127\.0\.0\.1:\d+\/calendar\/events\/v1/, '');
    expect(path(event.ical_url)).toBe(`/events/${linked.body.id}.ics`);
    const feeds: Array<[string, string, number[]]> = [
      [event.ical_url, `/events/${linked.body.id}.ics`, [linked.body.id]],
      [event.venue.ical_url, `/events.ics?venue=${venue.body.id}`, [linked.body.id]],
      [event.organizer[0].ical_url, `/events.ics?organizer=${organizer.body.id}`, [linked.body.id]],
      [
        event.categories[0].ical_url,
        `/events.ics?categories=${event.categories[0].id}`,
        [linked.body.id],
      ],
      [event.tags[0].ical_url, `/events.ics?tags=${event.tags[0].id}`, [linked.body.id]],
      [
        (await json(`/events?search=Other&password=geheim&per_page=5&page=1`)).ical_url,
        '/events.ics?search=Other',
        [other.body.id],
      ],
    ];
    for (const [url, expected, ids] of feeds) {
      expect(url).toEqual(apiUrl(expected));
      expect((await calendar(path(url))).uids).toEqual(ids.map(uid));
    }
    expect(path((await json(`/venues/${venue.body.id}`)).ical_url)).toBe(
      `/events.ics?venue=${venue.body.id}`,
    );
    expect(path((await json(`/organizers/${organizer.body.id}`)).ical_url)).toBe(
      `/events.ics?organizer=${organizer.body.id}`,
    );
    expect(path((await json(`/categories/${event.categories[0].id}`)).ical_url)).toBe(
      `/events.ics?categories=${event.categories[0].id}`,
    );
  });
});

describe('visibility', () => {
  it('never shows drafts or private events to anonymous callers; shows them to editors', async () => {
    const pub = await api.create({ title: 'Open', start_date: dayAt(1), end_date: dayAt(1) });
    const draft = await api.create({
      title: 'Concept',
      start_date: dayAt(2),
      end_date: dayAt(2),
      status: 'draft',
    });
    const priv = await api.create({
      title: 'Privé',
      start_date: dayAt(3),
      end_date: dayAt(3),
      status: 'private',
    });
    expect((await calendar('/events.ics')).uids).toEqual([uid(pub.body.id)]);
    const editor = await calendar('/events.ics', 'editor');
    expect(editor.events.map((e) => [e.UID, e.STATUS, e.CLASS])).toEqual([
      [uid(pub.body.id), 'CONFIRMED', 'PUBLIC'],
      [uid(draft.body.id), 'TENTATIVE', 'PUBLIC'],
      [uid(priv.body.id), 'CONFIRMED', 'PRIVATE'],
    ]);
    expect((await ics('/events.ics?status=draft').expect(400)).body).toEqual(
      errorBody('rest_invalid_param', 400, { status: expect.any(String) }),
    );
    expect((await ics(`/events/${draft.body.id}.ics`).expect(403)).body).toEqual(
      errorBody('event-not-accessible', 403),
    );
    expect((await ics(`/events/${priv.body.id}.ics`, 'subscriber').expect(403)).body).toEqual(
      errorBody('event-not-accessible', 403),
    );
  });

  it('writes a venue and an organizer alike in every batch, only where the caller may see them', async () => {
    const open = await api
      .createVenue(
        { venue: 'Paradiso', city: 'Amsterdam', geo_lat: 52.36, geo_lng: 4.88 },
        'editor',
      )
      .expect(201);
    const hidden = await api
      .createVenue({ venue: 'Concept', status: 'draft' }, 'editor')
      .expect(201);
    const secret = await api
      .createOrganizer({ organizer: 'Nog geheim', status: 'draft' }, 'editor')
      .expect(201);
    const mojo = await api
      .createOrganizer({ organizer: 'Mojo', email: 'info@mojo.nl' }, 'editor')
      .expect(201);
    const ids: number[] = [];
    for (let i = 0; i < 9; i++) {
      const created = await api
        .create(
          {
            title: `Event ${i}`,
            start_date: dayAt(1 + i),
            end_date: dayAt(1 + i),
            venue: i % 2 === 0 ? open.body.id : hidden.body.id,
            organizer: i % 3 === 0 ? [secret.body.id, mojo.body.id] : [mojo.body.id],
          },
          'editor',
        )
        .expect(201);
      ids.push(created.body.id as number);
    }
    // Batches of 2: the same venue and organizers are met in batch after batch; then with one
    // line kept per kind, so the kept lines start over in nearly every batch.
    const feeds = t.app.get(IcalFeedService);
    feeds.batchSize = 2;
    const linesPerKind = feeds.linesPerKind;
    try {
      for (const kept of [linesPerKind, 1]) {
        feeds.linesPerKind = kept;
        for (const user of [undefined, 'editor'] as const) {
          const single: string[] = [];
          for (const id of ids) single.push(...(await veventBytes(`/events/${id}.ics`, user)));
          expect(await veventBytes('/events.ics', user)).toEqual(single);
        }
      }
    } finally {
      feeds.linesPerKind = linesPerKind;
    }
    const seen = (cal: Calendar) =>
      cal.events.map((e) => [e.LOCATION, (e.ORGANIZER as { CN?: string } | undefined)?.CN]);
    const paradiso = 'Paradiso, Amsterdam';
    expect(seen(await calendar('/events.ics'))).toEqual(
      ids.map((_, i) => [i % 2 === 0 ? paradiso : undefined, 'Mojo']),
    );
    expect(seen(await calendar('/events.ics', 'editor'))).toEqual(
      ids.map((_, i) => [i % 2 === 0 ? paradiso : 'Concept', i % 3 === 0 ? 'Nog geheim' : 'Mojo']),
    );
  });

  it('reduces password-protected events to summary, dates and URL', async () => {
    const created = await api
      .create({
        title: 'Geheim',
        description: 'Secret text',
        start_date: dayAt(1, '20:00:00'),
        end_date: dayAt(1, '22:00:00'),
        timezone: 'Europe/Amsterdam',
        password: 'sesam',
        categories: ['Jazz'],
      })
      .expect(201);
    const id = created.body.id as number;
    const blanked = (await json('/events')).events[0];
    const reduced = await calendar('/events.ics');
    expect(reduced.events).toEqual([
      {
        UID: uid(id),
        DTSTAMP: utcTime(blanked.modified_utc),
        SEQUENCE: 0,
        SUMMARY: 'Geheim',
        DTSTART: {
          tzid: 'Europe/Amsterdam',
          local: blanked.start_date,
          utc: blanked.utc_start_date,
        },
        DTEND: { tzid: 'Europe/Amsterdam', local: blanked.end_date, utc: blanked.utc_end_date },
        URL: blanked.url,
        CLASS: 'PUBLIC',
      },
    ]);
    const full = await calendar('/events.ics?password=sesam');
    expect(full.events[0]).toMatchObject({ DESCRIPTION: 'Secret text', CATEGORIES: ['Jazz'] });
    expect((await calendar('/events.ics', 'author')).events[0]).toMatchObject({
      DESCRIPTION: 'Secret text',
    });
    expect((await ics(`/events/${id}.ics`).expect(403)).body).toEqual(
      errorBody('event-password-protected', 403),
    );
    expect((await ics(`/events/${id}.ics?password=wrong`).expect(403)).body).toEqual(
      errorBody('event-password-protected', 403),
    );
    const single = await calendar(`/events/${id}.ics?password=sesam`);
    expect(single.events[0]).toMatchObject({ SUMMARY: 'Geheim', DESCRIPTION: 'Secret text' });
    for (const [query, user] of [
      ['?password=sesam', undefined],
      ['', 'author'],
    ] as const) {
      expect(await veventBytes(`/events.ics${query}`, user)).toEqual(
        await veventBytes(`/events/${id}.ics${query}`, user),
      );
    }
  });
});

describe('errors, in the JSON format', () => {
  it('answers 404, 400 and 401 like the JSON reads', async () => {
    expect((await ics('/events/999.ics').expect(404)).body).toEqual(
      errorBody('rest-event-not-found', 404),
    );
    expect((await ics('/events/by-slug/nope.ics').expect(404)).body).toEqual(
      errorBody('rest-event-not-found', 404),
    );
    expect((await ics('/events/abc.ics').expect(404)).body).toEqual(
      errorBody('rest_no_route', 404),
    );
    expect((await ics('/events.ics?categories=nope').expect(400)).body).toEqual(
      errorBody('rest_invalid_param', 400, { categories: expect.any(String) }),
    );
    expect((await ics('/events.ics?language=fr').expect(400)).body).toEqual(
      errorBody('rest_invalid_param', 400, { language: expect.any(String) }),
    );
    expect(
      (await ics('/events.ics', undefined, { Authorization: 'Bearer nope' }).expect(401)).body,
    ).toEqual(errorBody('rest_forbidden', 401));
  });

  it('refuses a window over 10 years, or one without an end', async () => {
    const tooLong = await ics('/events.ics?start_date=2020-01-01&end_date=2030-01-02').expect(400);
    expect(tooLong.body).toEqual(
      errorBody('rest_invalid_param', 400, {
        end_date:
          'end_date: een iCalendar-feed beslaat hoogstens 10 jaar; stuur start_date en end_date hoogstens 10 jaar uit elkaar.',
      }),
    );
    await ics('/events.ics?start_date=2020-01-01&end_date=2029-12-31').expect(200);
    expect((await ics('/events.ics?starts_after=2020-01-01').expect(400)).body).toEqual(
      errorBody('rest_invalid_param', 400, { end_date: expect.any(String) }),
    );
  });
});

describe('validators', () => {
  it('answers 304 while nothing changed, a new ETag after a write', async () => {
    const created = await api
      .create({ title: 'Eén', start_date: dayAt(1), end_date: dayAt(1) })
      .expect(201);
    for (const path of ['/events.ics', `/events/${created.body.id}.ics`]) {
      const first = await ics(path).expect(200);
      const etag = first.headers.etag;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(first.headers['cache-control']).toBe('no-cache, public');
      expect(first.headers.vary).toBe('Accept-Language, Authorization');
      expect((await ics(path).expect(200)).headers.etag).toBe(etag);
      expect((await ics(`${path}?language=en`).expect(200)).headers.etag).not.toBe(etag);
      expect((await ics(path, 'editor').expect(200)).headers['cache-control']).toBe(
        'no-cache, private',
      );
      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const res = await ics(path, undefined, { 'If-None-Match': header }).expect(304);
        expect(res.body).toEqual(Buffer.alloc(0));
        expect(res.headers).toMatchObject({
          etag,
          'cache-control': 'no-cache, public',
          vary: 'Accept-Language, Authorization',
        });
      }
      await ics(path, undefined, { 'If-None-Match': '"other"' }).expect(200);
    }
    const before = (await ics('/events.ics').expect(200)).headers.etag;
    await api.update(created.body.id, { title: 'Twee' }).expect(200);
    const after = await ics('/events.ics', undefined, { 'If-None-Match': before }).expect(200);
    expect(after.headers.etag).not.toBe(before);
    expect(readCalendar(after).events[0]).toMatchObject({ SUMMARY: 'Twee', SEQUENCE: 1 });
  });

  it('SEQUENCE grows with every change of the event', async () => {
    const created = await api
      .create({ title: 'Seq', start_date: dayAt(1), end_date: dayAt(1) })
      .expect(201);
    const id = created.body.id as number;
    const sequence = async (user?: UserName) =>
      (await calendar(`/events/${id}.ics`, user)).events[0].SEQUENCE;
    expect(await sequence()).toBe(0);
    await api.update(id, { title: 'Seq 2' }).expect(200);
    expect(await sequence()).toBe(1);
    await api.update(id, { categories: ['Jazz'] }).expect(200);
    expect(await sequence()).toBe(2);
    await api.remove(`/events/${id}`).expect(200);
    expect((await calendar(`/events/${id}.ics`, 'author')).events[0]).toMatchObject({
      SEQUENCE: 3,
      STATUS: 'CANCELLED',
    });
  });

  it('reads the zones again only after a write, per filters and caller', async () => {
    const zoneQueries = jest.spyOn(t.app.get(IcalFeedReader), 'feedZones');
    const at = (timezone: string, title: string) =>
      api
        .create({
          title,
          start_date: dayAt(2, '19:00:00'),
          end_date: dayAt(2, '21:00:00'),
          timezone,
        })
        .expect(201);
    await at('Europe/Amsterdam', 'Amsterdam');
    const text = async (path: string, user?: UserName) =>
      ((await ics(path, user).expect(200)).body as Buffer).toString('utf8');
    expect((await calendar('/events.ics')).zones.map((z) => z.tzid)).toEqual(['Europe/Amsterdam']);
    const first = await text('/events.ics');
    // The same feed again: the same bytes, without the zone query.
    expect(await text('/events.ics')).toBe(first);
    expect(zoneQueries).toHaveBeenCalledTimes(1);
    // Other filters and another caller (who may see drafts) read their own.
    await text('/events.ics?featured=true');
    await text('/events.ics', 'editor');
    expect(zoneQueries).toHaveBeenCalledTimes(3);

    // A write in another zone: its VTIMEZONE is there at once.
    await at('America/New_York', 'New York');
    const after = await calendar('/events.ics');
    expect(after.zones.map((z) => z.tzid)).toEqual(['America/New_York', 'Europe/Amsterdam']);
    expect(zoneQueries).toHaveBeenCalledTimes(4);
    zoneQueries.mockRestore();
  });

  it('HEAD gives the headers without a body', async () => {
    const res = await t.http().head(`${API}/events.ics`).expect(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(res.headers.etag).toMatch(/^"/);
  });
});

describe('documentation', () => {
  it('lists the routes in the index and /doc with text/calendar answers', async () => {
    const doc = (await api.get('/doc').expect(200)).body;
    for (const path of ['/events.ics', '/events/{id}.ics', '/events/by-slug/{slug}.ics']) {
      const requestId = expect.objectContaining({
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
      });
      expect(doc.paths[path].get.responses['200']).toEqual({
        description: expect.any(String),
        headers: requestId,
        content: { 'text/calendar': { schema: { type: 'string' } } },
      });
      expect(doc.paths[path].get.responses['304']).toEqual({
        description: expect.any(String),
        headers: requestId,
      });
    }
    const feedParams = doc.paths['/events.ics'].get.parameters as Array<Record<string, any>>;
    expect(feedParams.find((p) => p.name === 'start_date')?.description).toMatch(/30 days/);
    expect(feedParams.map((p) => p.name)).not.toEqual(expect.arrayContaining(['page']));
    expect(feedParams.map((p) => p.name)).not.toEqual(expect.arrayContaining(['per_page']));
    const index = (await api.get('').expect(200)).body;
    expect(index.routes['/calendar/events/v1/events.ics']).toMatchObject({
      methods: ['GET'],
      _links: { self: [{ href: apiUrl('/events.ics') }] },
    });
    expect(Object.keys(index.routes['/calendar/events/v1/events.ics'].endpoints[0].args)).toEqual(
      expect.arrayContaining(['start_date', 'categories', 'geoloc_radius', 'password']),
    );
    expect(index.routes['/calendar/events/v1/events/{id}.ics'].methods).toEqual(['GET']);
  });
});
