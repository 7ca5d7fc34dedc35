import { Event } from '../../src/events/entities/event.entity';
import { datesOf, details, EMPTY_COST, eventRecord, eventRequests } from './helpers/events';
import { API, createTestApp, errorBody, TestApp, USERS } from './helpers/test-app';

const JAZZ = {
  title: 'Jazz in het park',
  start_date: '2030-06-01 20:00:00',
  end_date: '2030-06-01 23:00:00',
};

/** Jazz as created from JAZZ, in UTC (ID 1 unless told). */
const jazzRecord = (id = 1, fields: Record<string, unknown> = {}) =>
  eventRecord(id, { ...JAZZ, slug: 'jazz-in-het-park', ...fields });

/** A record as read by ID, minus the single-read extras, for embedding comparisons. */
function embedded(body: Record<string, unknown>): Record<string, unknown> {
  const { json_ld: _jsonLd, ...record } = body;
  return record;
}

describe('events', () => {
  let t: TestApp;
  let api: ReturnType<typeof eventRequests>;
  beforeAll(async () => {
    t = await createTestApp();
    // One port for the whole suite, so URLs in records read at different times compare equal.
    await t.app.listen(0, '127.0.0.1');
    api = eventRequests(t);
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  describe('create and read', () => {
    it('creates an event: 201, Location, the whole record in the documented order', async () => {
      const res = await api.create(JAZZ).expect(201);
      expect(res.body).toEqual(jazzRecord());
      expect(res.headers.location).toEqual(res.body.rest_url);
      expect(Object.keys(res.body)).toEqual([
        'id',
        'global_id',
        'global_id_lineage',
        'author',
        'status',
        'date',
        'date_utc',
        'modified',
        'modified_utc',
        'url',
        'rest_url',
        'ical_url',
        'title',
        'description',
        'excerpt',
        'slug',
        'image',
        'all_day',
        'start_date',
        'start_date_details',
        'end_date',
        'end_date_details',
        'utc_start_date',
        'utc_start_date_details',
        'utc_end_date',
        'utc_end_date_details',
        'timezone',
        'timezone_abbr',
        'cost',
        'cost_details',
        'website',
        'show_map',
        'show_map_link',
        'hide_from_listings',
        'sticky',
        'featured',
        'ticketed',
        'post_parent',
        'series_id',
        'recurrence',
        'password_protected',
        'categories',
        'tags',
        'venue',
        'organizer',
        'language',
        'languages',
        'external_id',
      ]);
    });

    it('stores every writable field and ignores read-only ones', async () => {
      const res = await api
        .create({
          ...JAZZ,
          description: '<p>Vrij <b>jazz</b> onder de bomen.</p>',
          excerpt: 'Jazz onder de bomen',
          slug: 'Zomer Jazz!',
          image: 'https://cdn.example.com/jazz.PNG',
          website: 'https://jazz.example.com',
          cost: '€12,50',
          show_map: 'false',
          show_map_link: 0,
          hide_from_listings: 'yes',
          sticky: true,
          featured: '1',
          ticketed: true,
          date: '2025-03-01 09:30:00',
          status: 'draft',
          id: 99,
          url: 'http://evil.example.com',
          utc_start_date: '1999-01-01 00:00:00',
          cost_details: { values: [1] },
          json_ld: { '@type': 'Thing' },
          global_id: 'x',
          password_protected: true,
          timezone_abbr: 'XYZ',
        })
        .expect(201);
      const url = 'http://calendar.test/nl/event/zomer-jazz/';
      expect(res.body).toEqual(
        eventRecord(1, {
          ...JAZZ,
          slug: 'zomer-jazz',
          url,
          status: 'draft',
          date: '2025-03-01 09:30:00',
          date_utc: '2025-03-01 09:30:00',
          description: '<p>Vrij <b>jazz</b> onder de bomen.</p>',
          excerpt: 'Jazz onder de bomen',
          image: { id: null, url: 'https://cdn.example.com/jazz.PNG', extension: 'png' },
          cost: '€12.50',
          cost_details: {
            currency_symbol: '€',
            currency_code: 'EUR',
            currency_position: 'prefix',
            values: [12.5],
          },
          website: 'https://jazz.example.com',
          show_map: false,
          show_map_link: false,
          hide_from_listings: true,
          sticky: true,
          featured: true,
          ticketed: true,
        }),
      );
    });

    it('accepts a form-encoded body', async () => {
      const res = await t
        .http()
        .post(`${API}/events`)
        .set('Authorization', t.auth.author)
        .type('form')
        .send(
          'title=Formulier&start_date=2030-06-01&end_date=2030-06-02&featured=true&cost[]=5&cost[]=10',
        )
        .expect(201);
      expect(res.body).toEqual(
        eventRecord(1, {
          title: 'Formulier',
          slug: 'formulier',
          start_date: '2030-06-01 00:00:00',
          end_date: '2030-06-02 00:00:00',
          featured: true,
          cost: '5 – 10',
          cost_details: { ...EMPTY_COST, values: [5, 10] },
        }),
      );
    });

    it('reads an event by ID and by slug with schema.org JSON-LD (single reads only)', async () => {
      await api
        .createVenue({
          venue: 'Vondelpark',
          address: 'Vondelpark 1',
          city: 'Amsterdam',
          zip: '1071 AA',
          country: 'Nederland',
          geo_lat: 52.358,
          geo_lng: 4.868,
          phone: '020 123',
        })
        .expect(201);
      await api
        .create({
          ...JAZZ,
          timezone: 'Europe/Amsterdam',
          excerpt: '<p>Jazz onder de bomen</p>',
          image: 'https://cdn.example.com/jazz.jpg',
          cost: ['€10', '€20'],
          venue: 1,
          organizer: [
            { organizer: 'Stichting Jazz', email: 'info@jazz.example', phone: '06 1234' },
          ],
        })
        .expect(201);
      const byId = await api.get('/events/1').expect(200);
      const jsonLd = {
        '@context': 'http://schema.org',
        '@type': 'Event',
        name: 'Jazz in het park',
        description: 'Jazz onder de bomen',
        image: 'https://cdn.example.com/jazz.jpg',
        url: 'http://calendar.test/nl/event/jazz-in-het-park/',
        startDate: '2030-06-01T20:00:00+02:00',
        endDate: '2030-06-01T23:00:00+02:00',
        location: {
          '@type': 'Place',
          name: 'Vondelpark',
          address: {
            '@type': 'PostalAddress',
            streetAddress: 'Vondelpark 1',
            addressLocality: 'Amsterdam',
            postalCode: '1071 AA',
            addressCountry: 'Nederland',
          },
          geo: { '@type': 'GeoCoordinates', latitude: 52.358, longitude: 4.868 },
          telephone: '020 123',
          url: 'http://calendar.test/nl/venue/vondelpark/',
        },
        organizer: [
          {
            '@type': 'Organization',
            name: 'Stichting Jazz',
            telephone: '06 1234',
            email: 'info@jazz.example',
            url: 'http://calendar.test/nl/organizer/stichting-jazz/',
          },
        ],
        offers: {
          '@type': 'Offer',
          price: 10,
          priceCurrency: 'EUR',
          url: 'http://calendar.test/nl/event/jazz-in-het-park/',
        },
      };
      expect(byId.body.json_ld).toEqual(jsonLd);
      const venue = embedded((await api.get('/venues/1').expect(200)).body);
      const organizer = embedded((await api.get('/organizers/1').expect(200)).body);
      expect(byId.body).toEqual(
        jazzRecord(1, {
          utc_start_date: '2030-06-01 18:00:00',
          utc_end_date: '2030-06-01 21:00:00',
          timezone: 'Europe/Amsterdam',
          timezone_abbr: 'CEST',
          excerpt: '<p>Jazz onder de bomen</p>',
          image: { id: null, url: 'https://cdn.example.com/jazz.jpg', extension: 'jpg' },
          cost: '€10 – €20',
          cost_details: {
            currency_symbol: '€',
            currency_code: 'EUR',
            currency_position: 'prefix',
            values: [10, 20],
          },
          venue,
          organizer: [organizer],
          json_ld: jsonLd,
        }),
      );
      const bySlug = await api.get('/events/by-slug/jazz-in-het-park').expect(200);
      expect(bySlug.body).toEqual(byId.body);
      const listed = await api.get('/events?starts_after=2030-06-01').expect(200);
      expect(listed.body.events).toEqual([embedded(byId.body)]);
    });

    it('answers 404 for unknown IDs and slugs, rest_no_route for other paths', async () => {
      for (const path of [
        '/events/1',
        '/events/0',
        '/events/99999999999',
        '/events/by-slug/nope',
      ]) {
        const res = await api.get(path).expect(404);
        expect(res.body).toEqual(errorBody('rest-event-not-found', 404));
      }
      for (const path of ['/events/abc', '/events/-1', '/events/by-slug/']) {
        const res = await api.get(path).expect(404);
        expect(res.body).toEqual(errorBody('rest_no_route', 404));
      }
    });

    it('finds no event by its slug with a space after it (MariaDB compares PAD SPACE)', async () => {
      const created = await api.create(JAZZ).expect(201);
      expect(created.body.slug).toBe('jazz-in-het-park');
      for (const path of [
        '/events/by-slug/jazz-in-het-park%20',
        '/events/by-slug/jazz-in-het-park%20%20',
      ]) {
        expect((await api.get(path).expect(404)).body).toEqual(
          errorBody('rest-event-not-found', 404),
        );
        const write = await t
          .http()
          .patch(`${API}${path}`)
          .set('Authorization', t.auth.author)
          .send({ title: 'Ander' })
          .expect(404);
        expect(write.body).toEqual(errorBody('rest-event-not-found', 404));
      }
      const after = await api.get('/events/by-slug/jazz-in-het-park').expect(200);
      expect(after.body.title).toEqual(created.body.title);
      expect(after.headers.etag).toBe(created.headers.etag);
    });

    it('gives slugs from the title, unique per language with -2, -3', async () => {
      const slugs = [];
      for (const body of [
        JAZZ,
        JAZZ,
        { ...JAZZ, slug: 'jazz-in-het-park' },
        { ...JAZZ, title: '🎷' },
      ]) {
        slugs.push((await api.create(body).expect(201)).body.slug);
      }
      expect(slugs).toEqual([
        'jazz-in-het-park',
        'jazz-in-het-park-2',
        'jazz-in-het-park-3',
        'event',
      ]);
      // The same slug in the other language is free.
      const english = await api.create({ ...JAZZ, language: 'en' }).expect(201);
      expect(english.body).toMatchObject({
        slug: 'jazz-in-het-park',
        language: 'en',
        languages: ['en'],
      });
    });
  });

  describe('time zones and dates', () => {
    it('computes utc_* and the abbreviation in New York and Amsterdam, winter and summer', async () => {
      const cases = [
        ['America/New_York', '2030-01-15 19:00:00', '2030-01-16 00:00:00', 'EST'],
        ['America/New_York', '2030-07-04 19:00:00', '2030-07-04 23:00:00', 'EDT'],
        ['Europe/Amsterdam', '2030-01-15 19:00:00', '2030-01-15 18:00:00', 'CET'],
        ['Europe/Amsterdam', '2030-07-04 19:00:00', '2030-07-04 17:00:00', 'CEST'],
        ['Europe/Istanbul', '2030-07-04 19:00:00', '2030-07-04 16:00:00', '+03'],
        ['UTC+2', '2030-07-04 19:00:00', '2030-07-04 17:00:00', 'UTC+2'],
        ['UTC-03:30', '2030-07-04 19:00:00', '2030-07-04 22:30:00', 'UTC-03:30'],
      ];
      for (const [timezone, start, utcStart, abbreviation] of cases) {
        const res = await api
          .create({ title: timezone, timezone, start_date: start, end_date: start })
          .expect(201);
        expect(res.body).toMatchObject({
          timezone,
          timezone_abbr: abbreviation,
          start_date: start,
          start_date_details: details(start),
          utc_start_date: utcStart,
          utc_start_date_details: details(utcStart),
          utc_end_date: utcStart,
        });
      }
    });

    it('reads instants with an offset and unix timestamps into the event zone', async () => {
      const res = await api
        .create({
          title: 'Offset',
          timezone: 'Europe/Amsterdam',
          start_date: '2030-01-15T18:00:00Z',
          end_date: String(Date.UTC(2030, 0, 15, 20) / 1000),
        })
        .expect(201);
      expect(datesOf(res.body)).toEqual({
        start_date: '2030-01-15 19:00:00',
        end_date: '2030-01-15 21:00:00',
        utc_start_date: '2030-01-15 18:00:00',
        utc_end_date: '2030-01-15 20:00:00',
      });
    });

    it('re-interprets the stored wall-clock times when the zone changes', async () => {
      await api.create({ ...JAZZ, timezone: 'Europe/Amsterdam' }).expect(201);
      const res = await api.update(1, { timezone: 'America/New_York' }).expect(200);
      expect(res.body).toEqual(
        jazzRecord(1, {
          timezone: 'America/New_York',
          timezone_abbr: 'EDT',
          utc_start_date: '2030-06-02 00:00:00',
          utc_end_date: '2030-06-02 03:00:00',
        }),
      );
      const stored = await t.dataSource.getRepository(Event).findOneByOrFail({ id: 1 });
      expect([stored.startAt, stored.endAt]).toEqual([
        Date.UTC(2030, 5, 2, 0) / 1000,
        Date.UTC(2030, 5, 2, 3) / 1000,
      ]);
    });

    it('reads new dates in a zone sent with them, and keeps the other date', async () => {
      await api.create(JAZZ).expect(201);
      const res = await api
        .update(1, { timezone: 'Europe/Amsterdam', start_date: '2030-06-01 21:00' })
        .expect(200);
      expect(datesOf(res.body)).toEqual({
        start_date: '2030-06-01 21:00:00',
        end_date: '2030-06-01 23:00:00',
        utc_start_date: '2030-06-01 19:00:00',
        utc_end_date: '2030-06-01 21:00:00',
      });
    });

    it('stretches a single all-day event over its day', async () => {
      const res = await api
        .create({
          title: 'Markt',
          all_day: true,
          start_date: '2030-06-01 10:00',
          end_date: '2030-06-01 16:00',
        })
        .expect(201);
      expect(res.body).toEqual(
        eventRecord(1, {
          title: 'Markt',
          slug: 'markt',
          all_day: true,
          start_date: '2030-06-01 00:00:00',
          end_date: '2030-06-01 23:59:59',
        }),
      );
    });

    it('stretches a multi-day all-day event from the first to the last day, in its zone', async () => {
      const res = await api
        .create({
          title: 'Festival',
          all_day: 'true',
          timezone: 'Europe/Amsterdam',
          start_date: '2030-07-10',
          end_date: '2030-07-12 08:00',
        })
        .expect(201);
      expect(res.body).toEqual(
        eventRecord(1, {
          title: 'Festival',
          slug: 'festival',
          all_day: true,
          timezone: 'Europe/Amsterdam',
          timezone_abbr: 'CEST',
          start_date: '2030-07-10 00:00:00',
          end_date: '2030-07-12 23:59:59',
          utc_start_date: '2030-07-09 22:00:00',
          utc_end_date: '2030-07-12 21:59:59',
        }),
      );
      // Turning all_day on later stretches the stored times too.
      await api.create({ ...JAZZ }).expect(201);
      const later = await api.update(2, { all_day: true }).expect(200);
      expect(later.body).toEqual(
        jazzRecord(2, {
          all_day: true,
          start_date: '2030-06-01 00:00:00',
          end_date: '2030-06-01 23:59:59',
        }),
      );
    });
  });

  describe('cost, website and flags', () => {
    it('parses cost strings and arrays; free in the request language', async () => {
      const cases: Array<[unknown, string, string, Record<string, unknown>]> = [
        [
          '20$',
          '20$',
          '20$',
          {
            currency_symbol: '$',
            currency_code: 'USD',
            currency_position: 'postfix',
            values: [20],
          },
        ],
        [
          '€10',
          '€10',
          '€10',
          { currency_symbol: '€', currency_code: 'EUR', currency_position: 'prefix', values: [10] },
        ],
        ['10 - 20', '10 – 20', '10 – 20', { ...EMPTY_COST, values: [10, 20] }],
        ['5,50', '5.50', '5.50', { ...EMPTY_COST, values: [5.5] }],
        [
          ['0', '30$', '15$'],
          'Gratis – 30$',
          'Free – 30$',
          {
            currency_symbol: '$',
            currency_code: 'USD',
            currency_position: 'postfix',
            values: [0, 15, 30],
          },
        ],
        [
          ['£8', 8],
          '£8',
          '£8',
          { currency_symbol: '£', currency_code: 'GBP', currency_position: 'prefix', values: [8] },
        ],
        ['gratis', 'Gratis', 'Free', { ...EMPTY_COST, values: [0] }],
      ];
      for (const [cost, dutch, english, costDetails] of cases) {
        const created = await api.create({ ...JAZZ, cost }).expect(201);
        expect(created.body).toMatchObject({ cost: dutch, cost_details: costDetails });
        const read = await api.get(`/events/${created.body.id}?language=en`).expect(200);
        expect(read.body).toMatchObject({
          cost: english,
          cost_details: costDetails,
          language: 'nl',
        });
      }
    });

    it('clears the cost with "" or []; a text without an amount is 400', async () => {
      await api.create({ ...JAZZ, cost: '€10' }).expect(201);
      expect((await api.update(1, { cost: '' }).expect(200)).body).toMatchObject({
        cost: '',
        cost_details: EMPTY_COST,
      });
      await api.update(1, { cost: ['€5'] }).expect(200);
      expect((await api.update(1, { cost: [] }).expect(200)).body).toMatchObject({
        cost: '',
        cost_details: EMPTY_COST,
      });
      const res = await api.update(1, { cost: 'op aanvraag' }).expect(400);
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          cost: 'cost moet een bedrag zijn zoals "€10", "10 - 20" of "5,50", of een lijst daarvan.',
        }),
      );
    });

    it('shows the permalink as website when there is none', async () => {
      await api.create({ ...JAZZ, website: 'https://jazz.example.com' }).expect(201);
      const cleared = await api.update(1, { website: '' }).expect(200);
      expect(cleared.body.website).toBe('http://calendar.test/nl/event/jazz-in-het-park/');
    });

    it('keeps flags left out of an update', async () => {
      await api
        .create({
          ...JAZZ,
          show_map: false,
          show_map_link: false,
          hide_from_listings: true,
          sticky: true,
          featured: true,
          ticketed: true,
        })
        .expect(201);
      const res = await api.update(1, { featured: false }).expect(200);
      expect(res.body).toMatchObject({
        show_map: false,
        show_map_link: false,
        hide_from_listings: true,
        sticky: true,
        featured: false,
        ticketed: true,
      });
    });

    it('links a parent event; 0 clears it; an unknown or the same event is 400', async () => {
      await api.create(JAZZ).expect(201);
      const child = await api.create({ ...JAZZ, post_parent: 1 }).expect(201);
      expect(child.body.post_parent).toBe(1);
      expect((await api.update(2, { post_parent: 0 }).expect(200)).body.post_parent).toBe(0);
      const unknown = await api.update(2, { post_parent: 42 }).expect(400);
      expect(unknown.body).toEqual(
        errorBody('rest_invalid_param', 400, { post_parent: expect.any(String) }),
      );
      const self = await api.update(2, { post_parent: 2 }).expect(400);
      expect(self.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          post_parent: 'post_parent kan niet het evenement zelf zijn.',
        }),
      );
      // Deleting the parent for good frees the child.
      await api.update(2, { post_parent: 1 }).expect(200);
      await api.remove('/events/1?force=true', 'editor').expect(200);
      expect((await api.get('/events/2').expect(200)).body.post_parent).toBe(0);
    });
  });

  describe('venue, organizers and terms', () => {
    const venueBody = { venue: 'Paradiso', address: 'Weteringschans 6', city: 'Amsterdam' };

    it('creates an inline venue and inline organizers, keeping the organizer order', async () => {
      await api.createOrganizer({ organizer: 'Bestaand' }).expect(201);
      const res = await api
        .create({
          ...JAZZ,
          venue: venueBody,
          organizer: [{ organizer: 'Zeta' }, 1, { organizer: 'Alfa', email: 'alfa@example.com' }],
        })
        .expect(201);
      const venue = embedded((await api.get('/venues/1').expect(200)).body);
      const organizers = await Promise.all(
        [2, 1, 3].map(async (id) =>
          embedded((await api.get(`/organizers/${id}`).expect(200)).body),
        ),
      );
      expect(venue).toMatchObject({ id: 1, venue: 'Paradiso', city: 'Amsterdam' });
      expect(organizers.map((o) => o.organizer)).toEqual(['Zeta', 'Bestaand', 'Alfa']);
      expect(res.body).toEqual(jazzRecord(1, { venue, organizer: organizers }));
    });

    it('reuses an existing venue and organizer for an inline object that matches', async () => {
      await api
        .create({
          ...JAZZ,
          venue: venueBody,
          organizer: { organizer: 'Alfa', email: 'a@example.com' },
        })
        .expect(201);
      const second = await api
        .create({
          ...JAZZ,
          venue: { ...venueBody, venue: 'PARADISO' },
          organizer: [{ organizer: 'alfa', email: 'a@example.com' }],
        })
        .expect(201);
      expect(second.body.venue.id).toBe(1);
      expect(second.body.organizer.map((o: { id: number }) => o.id)).toEqual([1]);
      expect((await api.get('/venues').expect(200)).body.total).toBe(1);
    });

    it('links by ID, {id} and comma lists, and unlinks with 0, "" and []', async () => {
      for (const name of ['Een', 'Twee', 'Drie']) {
        await api.createOrganizer({ organizer: name }).expect(201);
      }
      await api.createVenue({ venue: 'Zaal' }).expect(201);
      await api.create({ ...JAZZ, venue: { id: 1 }, organizer: '3,1' }).expect(201);
      let body = (await api.get('/events/1').expect(200)).body;
      expect(body.venue.id).toBe(1);
      expect(body.organizer.map((o: { id: number }) => o.id)).toEqual([3, 1]);

      body = (await api.update(1, { organizer: [{ id: 2 }, '3'] }).expect(200)).body;
      expect(body.organizer.map((o: { id: number }) => o.id)).toEqual([2, 3]);
      for (const unlink of [0, '', []]) {
        await api.update(1, { venue: 1 }).expect(200);
        expect((await api.update(1, { venue: unlink }).expect(200)).body.venue).toEqual([]);
      }
      expect((await api.update(1, { organizer: [] }).expect(200)).body.organizer).toEqual([]);
      // Left out: unchanged.
      await api.update(1, { venue: 1, organizer: 2 }).expect(200);
      body = (await api.update(1, { title: 'Nieuw' }).expect(200)).body;
      expect([body.venue.id, body.organizer.map((o: { id: number }) => o.id)]).toEqual([1, [2]]);
    });

    it('answers 400 for venue and organizer IDs that do not exist, and for invalid inline objects', async () => {
      expect((await api.create({ ...JAZZ, venue: 7 }).expect(400)).body).toEqual(
        errorBody('rest_invalid_param', 400, { venue: expect.any(String) }),
      );
      expect((await api.create({ ...JAZZ, organizer: [7] }).expect(400)).body).toEqual(
        errorBody('rest_invalid_param', 400, { organizer: expect.any(String) }),
      );
      expect((await api.create({ ...JAZZ, venue: { city: 'Utrecht' } }).expect(400)).body).toEqual(
        errorBody('rest_missing_callback_param', 400, ['venue.venue']),
      );
      expect(
        (await api.create({ ...JAZZ, organizer: [{ organizer: 'X', email: 'nope' }] }).expect(400))
          .body,
      ).toEqual(errorBody('rest_invalid_param', 400, { 'organizer.email': expect.any(String) }));
      expect((await api.get('/events?starts_after=2000-01-01').expect(200)).body.total).toBe(0);
    });

    it('links categories and tags by name (creating them) and by ID; "" clears one taxonomy', async () => {
      const res = await api
        .create({ ...JAZZ, categories: 'Muziek, Jazz', tags: ['buiten', 'gratis'] }, 'editor')
        .expect(201);
      const categories = await Promise.all(
        [2, 1].map(async (id) => (await api.get(`/categories/${id}`).expect(200)).body),
      );
      const tags = await Promise.all(
        [3, 4].map(async (id) => (await api.get(`/tags/${id}`).expect(200)).body),
      );
      expect(categories.map((c) => c.name)).toEqual(['Jazz', 'Muziek']);
      expect(tags.map((c) => c.name)).toEqual(['buiten', 'gratis']);
      expect(res.body).toEqual(
        jazzRecord(1, { author: String(USERS.editor.id), categories, tags }),
      );
      expect(categories[0]).toMatchObject({ count: 1, taxonomy: 'tribe_events_cat' });

      // Mixed IDs and names; an existing name (any case) is reused.
      const second = await api
        .create({ ...JAZZ, categories: [1, 'jazz'], tags: 3 }, 'editor')
        .expect(201);
      expect(second.body.categories.map((c: { id: number }) => c.id)).toEqual([2, 1]);
      expect(second.body.tags.map((c: { id: number }) => c.id)).toEqual([3]);

      const cleared = await api.update(1, { categories: '' }, 'editor').expect(200);
      expect([cleared.body.categories, cleared.body.tags.length]).toEqual([[], 2]);
      const untagged = await api.update(1, { tags: [] }, 'editor').expect(200);
      expect(untagged.body.tags).toEqual([]);
    });

    it('answers 400 for unknown term IDs and 403 when the caller may not create the term', async () => {
      expect((await api.create({ ...JAZZ, categories: [42] }).expect(400)).body).toEqual(
        errorBody('rest_invalid_param', 400, { categories: expect.any(String) }),
      );
      // Authors may create categories but not tags.
      expect((await api.create({ ...JAZZ, tags: 'nieuw' }).expect(403)).body).toEqual(
        errorBody('rest_forbidden', 403),
      );
      expect(
        (await api.create({ ...JAZZ, categories: 'Nieuw' }, 'contributor').expect(403)).body,
      ).toEqual(errorBody('rest_forbidden', 403));
      await api.create({ ...JAZZ, categories: 'Nieuw' }).expect(201);
    });

    it('hides a venue or organizer the caller may not see', async () => {
      await api.createVenue({ venue: 'Geheim', status: 'draft' }).expect(201);
      await api.createOrganizer({ organizer: 'Verborgen', status: 'draft' }).expect(201);
      await api.create({ ...JAZZ, venue: 1, organizer: 1 }).expect(201);
      expect((await api.get('/events/1').expect(200)).body).toMatchObject({
        venue: [],
        organizer: [],
      });
      expect((await api.get('/events/1', 'author').expect(200)).body).toMatchObject({
        venue: { id: 1 },
        organizer: [{ id: 1 }],
      });
    });
  });

  describe('one transaction per write', () => {
    it('leaves the event as it was when a link of an update fails', async () => {
      await api.create(JAZZ).expect(201);
      const res = await api
        .update(1, {
          title: 'Nieuwe titel',
          featured: true,
          organizer: [{ organizer: 'Nieuw' }, 77],
        })
        .expect(400);
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, { organizer: expect.any(String) }),
      );
      expect((await api.get('/events/1').expect(200)).body).toEqual(
        jazzRecord(1, { json_ld: expect.any(Object) }),
      );
      expect((await api.get('/organizers').expect(200)).body.total).toBe(0);
    });

    it('leaves no inline venue behind when a later category fails', async () => {
      const res = await api
        .create({
          ...JAZZ,
          venue: { venue: 'Nieuwe zaal' },
          organizer: { organizer: 'Nieuw' },
          categories: ['Nieuw', 99],
        })
        .expect(400);
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, { categories: expect.any(String) }),
      );
      const [events, venues, organizers, categories] = await Promise.all([
        t.dataSource.getRepository(Event).count(),
        api.get('/venues').expect(200),
        api.get('/organizers').expect(200),
        api.get('/categories?hide_empty=false').expect(200),
      ]);
      expect([events, venues.body.total, organizers.body.total, categories.body.total]).toEqual([
        0, 0, 0, 0,
      ]);
    });

    it('keeps the links when a new translation misses its title', async () => {
      await api.create({ ...JAZZ, venue: { venue: 'Zaal' } }).expect(201);
      const res = await api
        .update(1, { excerpt: 'English', venue: 0 }, 'author', '?language=en')
        .expect(400);
      expect(res.body).toEqual(errorBody('rest_missing_callback_param', 400, ['title']));
      expect((await api.get('/events/1').expect(200)).body.venue.id).toBe(1);
    });
  });

  describe('languages', () => {
    it('adds a translation, shows the best language, and both with context=edit to editors', async () => {
      await api.create({ ...JAZZ, description: 'Nederlands' }).expect(201);
      const english = await api
        .update(1, { title: 'Jazz in the park', description: 'English' }, 'author', '?language=en')
        .expect(200);
      expect(english.body).toEqual(
        eventRecord(1, {
          ...JAZZ,
          title: 'Jazz in the park',
          slug: 'jazz-in-the-park',
          description: 'English',
          language: 'en',
          languages: ['nl', 'en'],
        }),
      );
      const dutch = await api.get('/events/by-slug/jazz-in-the-park').expect(200);
      expect(dutch.body).toMatchObject({
        title: 'Jazz in het park',
        language: 'nl',
        languages: ['nl', 'en'],
      });
      const edit = await api.get('/events/1?context=edit', 'author').expect(200);
      expect(edit.body.translations).toEqual({
        nl: {
          title: 'Jazz in het park',
          description: 'Nederlands',
          excerpt: '',
          slug: 'jazz-in-het-park',
        },
        en: {
          title: 'Jazz in the park',
          description: 'English',
          excerpt: '',
          slug: 'jazz-in-the-park',
        },
      });
      expect(Object.keys(edit.body).slice(-2)).toEqual(['json_ld', 'translations']);
      expect((await api.get('/events/1?context=edit').expect(401)).body).toEqual(
        errorBody('rest_forbidden', 401),
      );
      expect((await api.get('/events/1?context=edit', 'otherAuthor').expect(403)).body).toEqual(
        errorBody('rest_forbidden', 403),
      );
      expect(
        (await api.get('/events?context=edit&starts_after=2030-01-01', 'author').expect(200)).body
          .events[0].translations,
      ).toEqual(edit.body.translations);
      expect(
        (await api.get('/events?context=edit&starts_after=2030-01-01', 'otherAuthor').expect(200))
          .body.events[0],
      ).not.toHaveProperty('translations');
    });

    it('updates and deletes by slug; a new slug is kept unique', async () => {
      await api.create(JAZZ).expect(201);
      await api.create({ ...JAZZ, title: 'Ander' }).expect(201);
      const res = await t
        .http()
        .put(`${API}/events/by-slug/ander`)
        .set('Authorization', t.auth.author)
        .send({ slug: 'jazz-in-het-park' })
        .expect(200);
      expect(res.body).toMatchObject({ id: 2, slug: 'jazz-in-het-park-2' });
      const posted = await t
        .http()
        .post(`${API}/events/by-slug/jazz-in-het-park-2`)
        .set('Authorization', t.auth.author)
        .send({ featured: true })
        .expect(200);
      expect(posted.body).toMatchObject({ id: 2, featured: true });
      const trashed = await api.remove('/events/by-slug/jazz-in-het-park-2').expect(200);
      expect(trashed.body).toMatchObject({ id: 2, status: 'trash' });
    });
  });

  describe('password protection', () => {
    it('never returns the password and answers 403 without the right one', async () => {
      const created = await api.create({ ...JAZZ, password: 'geheim', cost: '€5' }).expect(201);
      expect(created.body).toEqual(
        jazzRecord(1, {
          password_protected: true,
          cost: '€5',
          cost_details: {
            currency_symbol: '€',
            currency_code: 'EUR',
            currency_position: 'prefix',
            values: [5],
          },
        }),
      );
      const stored = await t.dataSource.getRepository(Event).findOneByOrFail({ id: 1 });
      expect(stored.passwordHash).toMatch(/^[0-9a-f]{32}:[0-9a-f]{64}$/);
      for (const query of ['', '?password=fout', '?password=']) {
        expect((await api.get(`/events/1${query}`).expect(403)).body).toEqual(
          errorBody('event-password-protected', 403),
        );
      }
      expect((await api.get('/events/by-slug/jazz-in-het-park').expect(403)).body).toEqual(
        errorBody('event-password-protected', 403),
      );
      const open = await api.get('/events/1?password=geheim').expect(200);
      expect(open.body).toEqual({ ...created.body, json_ld: expect.any(Object) });
      // Those who may edit it need no password.
      await api.get('/events/1', 'author').expect(200);
      await api.get('/events/1', 'editor').expect(200);
      expect((await api.get('/events/1', 'otherAuthor').expect(403)).body).toEqual(
        errorBody('event-password-protected', 403),
      );
    });

    it('opens by slug with the right password, as by ID', async () => {
      const created = await api.create({ ...JAZZ, password: 'geheim' }).expect(201);
      for (const query of ['', '?password=fout']) {
        expect(
          (await api.get(`/events/by-slug/jazz-in-het-park${query}`).expect(403)).body,
        ).toEqual(errorBody('event-password-protected', 403));
      }
      const open = await api.get('/events/by-slug/jazz-in-het-park?password=geheim').expect(200);
      expect(open.body).toEqual({ ...created.body, json_ld: expect.any(Object) });
    });

    it('removes the protection with ""', async () => {
      await api.create({ ...JAZZ, password: 'geheim' }).expect(201);
      expect((await api.update(1, { password: '' }).expect(200)).body.password_protected).toBe(
        false,
      );
      await api.get('/events/1').expect(200);
    });

    it('accepts and ignores a password on DELETE', async () => {
      await api.create({ ...JAZZ, password: 'geheim' }).expect(201);
      const res = await api.remove('/events/1?password=fout').expect(200);
      expect(res.body).toMatchObject({ status: 'trash', password_protected: true });
    });
  });

  describe('validation', () => {
    it('requires title, start_date and end_date on create', async () => {
      expect((await api.create({}).expect(400)).body).toEqual(
        errorBody('rest_missing_callback_param', 400, ['title', 'start_date', 'end_date']),
      );
      expect((await api.create({ title: 'X', start_date: '2030-01-01' }).expect(400)).body).toEqual(
        errorBody('rest_missing_callback_param', 400, ['end_date']),
      );
    });

    it('rejects an end before the start, on create and update', async () => {
      expect(
        (await api.create({ ...JAZZ, end_date: '2030-06-01 19:59:59' }).expect(400)).body,
      ).toEqual(
        errorBody('rest_invalid_param', 400, {
          end_date: 'end_date mag niet vóór start_date liggen.',
        }),
      );
      await api.create(JAZZ).expect(201);
      expect((await api.update(1, { start_date: '2030-06-02' }).expect(400)).body).toEqual(
        errorBody('rest_invalid_param', 400, { end_date: expect.any(String) }),
      );
    });

    it.each([
      ['title', ''],
      ['title', '   '],
      ['title', 'x'.repeat(201)],
      ['title', 12],
      ['description', 'x'.repeat(100001)],
      ['excerpt', 'x'.repeat(1001)],
      ['slug', 'x'.repeat(201)],
      ['start_date', '1 juni'],
      ['end_date', '2030-13-01'],
      ['timezone', 'Mars/Olympus'],
      ['timezone', 'UTC+15'],
      ['timezone', ''],
      ['all_day', 'soms'],
      ['featured', 'misschien'],
      ['status', 'trash'],
      ['status', 'gepubliceerd'],
      ['author', 0],
      ['author', 'me'],
      ['image', 'ftp://example.com/a.png'],
      ['website', 'niet-een-url'],
      ['cost', { amount: 5 }],
      ['cost', 'TBA'],
      ['post_parent', -1],
      ['password', 'x'.repeat(256)],
      ['date', 'gisteren'],
    ])('rejects a bad %s with 400 naming it (case %#)', async (name, value) => {
      const res = await api.create({ ...JAZZ, [name]: value }).expect(400);
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, { [name]: expect.any(String) }),
      );
    });

    it('rejects null for fields that cannot be empty, on update too', async () => {
      await api.create(JAZZ).expect(201);
      for (const name of ['title', 'start_date']) {
        const res = await api.update(1, { [name]: null }).expect(400);
        expect(res.body).toEqual(errorBody('rest_missing_callback_param', 400, [name]));
      }
      for (const name of ['featured', 'timezone', 'status', 'description', 'website']) {
        const res = await api.update(1, { [name]: null }).expect(400);
        expect(res.body).toEqual(
          errorBody('rest_invalid_param', 400, { [name]: expect.any(String) }),
        );
      }
    });

    it('checks authentication before validation, and that the caller may create', async () => {
      expect((await t.http().post(`${API}/events`).send({}).expect(401)).body).toEqual(
        errorBody('rest_forbidden', 401),
      );
      expect((await api.create(JAZZ, 'subscriber').expect(403)).body).toEqual(
        errorBody('rest_forbidden', 403),
      );
    });
  });

  describe('roles and visibility', () => {
    it('scales a contributor back: draft by default, pending instead of publish', async () => {
      expect((await api.create(JAZZ, 'contributor').expect(201)).body).toMatchObject({
        status: 'draft',
        author: '4',
      });
      expect(
        (await api.create({ ...JAZZ, status: 'publish' }, 'contributor').expect(201)).body.status,
      ).toBe('pending');
      expect(
        (await api.update(2, { status: 'future' }, 'contributor').expect(200)).body.status,
      ).toBe('pending');
      expect(
        (await api.create({ ...JAZZ, status: 'private' }, 'contributor').expect(201)).body.status,
      ).toBe('private');
    });

    it('lets only editors and up name another author', async () => {
      expect(
        (await api.create({ ...JAZZ, author: USERS.otherAuthor.id }).expect(403)).body,
      ).toEqual(errorBody('rest_forbidden', 403));
      expect((await api.create({ ...JAZZ, author: USERS.author.id }).expect(201)).body.author).toBe(
        '3',
      );
      expect(
        (await api.create({ ...JAZZ, author: USERS.otherAuthor.id }, 'editor').expect(201)).body
          .author,
      ).toBe('6');
    });

    it('follows the role table for updates', async () => {
      await api.create(JAZZ).expect(201); // author's published event
      await api.create(JAZZ, 'contributor').expect(201); // contributor's draft
      await api.update(1, { featured: true }, 'otherAuthor').expect(403);
      await api.update(1, { featured: true }, 'contributor').expect(403);
      await api.update(1, { featured: true }, 'subscriber').expect(403);
      await t.http().patch(`${API}/events/1`).send({ featured: true }).expect(401);
      await api.update(1, { featured: true }, 'author').expect(200);
      await api.update(1, { featured: true }, 'editor').expect(200);
      await api.update(2, { featured: true }, 'contributor').expect(200);
      await api.update(2, { featured: true }, 'otherContributor').expect(403);
      await api.update(2, { status: 'publish' }, 'editor').expect(200);
      // Published now: no longer the contributor's to change.
      expect((await api.update(2, { featured: false }, 'contributor').expect(403)).body).toEqual(
        errorBody('rest_forbidden', 403),
      );
    });

    it('shows unpublished events to their owners and editors only', async () => {
      await api.create({ ...JAZZ, status: 'draft' }, 'contributor').expect(201);
      for (const user of [undefined, 'subscriber', 'otherContributor', 'author'] as const) {
        expect((await api.get('/events/1', user).expect(403)).body).toEqual(
          errorBody('event-not-accessible', 403),
        );
      }
      await api.get('/events/1', 'contributor').expect(200);
      await api.get('/events/1', 'editor').expect(200);
      await api.get('/events/1', 'administrator').expect(200);
    });

    it('sends a token that is invalid to 401 even on reads', async () => {
      await api.create(JAZZ).expect(201);
      const res = await t
        .http()
        .get(`${API}/events/1`)
        .set('Authorization', 'Bearer nope')
        .expect(401);
      expect(res.body).toEqual(errorBody('rest_forbidden', 401));
    });
  });

  describe('deletion', () => {
    it('trashes, then answers 410; a trashed event is 403 for others, 200 for owner and editors', async () => {
      await api.create(JAZZ).expect(201);
      const trashed = await api.remove('/events/1').expect(200);
      expect(trashed.body).toEqual(jazzRecord(1, { status: 'trash' }));
      expect((await api.remove('/events/1').expect(410)).body).toEqual(
        errorBody('event-is-in-trash', 410),
      );
      expect((await api.get('/events/1').expect(403)).body).toEqual(
        errorBody('event-no-longer-available', 403),
      );
      expect((await api.get('/events/1', 'otherAuthor').expect(403)).body).toEqual(
        errorBody('event-no-longer-available', 403),
      );
      await api.get('/events/1', 'author').expect(200);
      await api.get('/events/1', 'editor').expect(200);
      // Sending a status restores it.
      expect((await api.update(1, { status: 'publish' }).expect(200)).body.status).toBe('publish');
    });

    it('deletes for good with force=true (editors and up), answering the record as it was', async () => {
      await api.createVenue({ venue: 'Zaal' }).expect(201);
      await api.create({ ...JAZZ, venue: 1, categories: 'Muziek' }).expect(201);
      expect((await api.remove('/events/1?force=true').expect(403)).body).toEqual(
        errorBody('rest_forbidden', 403),
      );
      await api.remove('/events/1', 'otherAuthor').expect(403);
      const before = embedded((await api.get('/events/1').expect(200)).body);
      const res = await api.remove('/events/1?force=true', 'editor').expect(200);
      expect(res.body).toEqual(before);
      expect((await api.get('/events/1').expect(404)).body).toEqual(
        errorBody('rest-event-not-found', 404),
      );
      expect((await api.get('/categories/1').expect(200)).body.count).toBe(0);
      // A trashed event can be deleted for good too.
      await api.create(JAZZ).expect(201);
      await api.remove('/events/2').expect(200);
      expect((await api.remove('/events/2?force=1', 'administrator').expect(200)).body.status).toBe(
        'trash',
      );
    });

    it('validates force', async () => {
      await api.create(JAZZ).expect(201);
      expect((await api.remove('/events/1?force=soms').expect(400)).body).toEqual(
        errorBody('rest_invalid_param', 400, { force: expect.any(String) }),
      );
    });
  });

  describe('what other resources say about events', () => {
    const names = (records: Array<Record<string, unknown>>, key: string) =>
      records.map((r) => r[key]);

    it('counts published events per term and lists the terms of an event', async () => {
      await api.create({ ...JAZZ, categories: 'Jazz, Blues' }).expect(201);
      await api.create({ ...JAZZ, categories: 'Jazz', status: 'draft' }).expect(201);
      const jazz = (await api.get('/categories/1').expect(200)).body;
      expect(jazz).toMatchObject({ name: 'Jazz', count: 1 });
      const ofEvent = await api.get('/categories?event=1').expect(200);
      expect(ofEvent.body.categories).toEqual([
        (await api.get('/categories/2').expect(200)).body,
        jazz,
      ]);
      const ofDraft = await api.get('/categories?post=2&hide_empty=false', 'author').expect(200);
      expect(names(ofDraft.body.categories, 'name')).toEqual(['Jazz']);
    });

    it('filters venues and organizers by event, has_events and only_with_upcoming', async () => {
      for (const venue of ['Open', 'Concept', 'Leeg']) await api.createVenue({ venue }).expect(201);
      for (const organizer of ['Open', 'Concept', 'Leeg'])
        await api.createOrganizer({ organizer }).expect(201);
      await api.create({ ...JAZZ, venue: 1, organizer: 1 }).expect(201);
      await api.create({ ...JAZZ, venue: 2, organizer: 2, status: 'draft' }).expect(201);
      const venues = async (query: string) =>
        names((await api.get(`/venues${query}`, 'editor').expect(200)).body.venues, 'venue');
      const organizers = async (query: string) =>
        names(
          (await api.get(`/organizers${query}`, 'editor').expect(200)).body.organizers,
          'organizer',
        );
      expect(await venues('?event=1')).toEqual(['Open']);
      expect(await venues('?has_events=true')).toEqual(['Open']);
      expect(await venues('?has_events=false')).toEqual(['Leeg', 'Concept']);
      expect(await venues('?only_with_upcoming=true')).toEqual(['Concept', 'Open']);
      expect(await organizers('?event=2')).toEqual(['Concept']);
      expect(await organizers('?has_events=true')).toEqual(['Open']);
      expect(await organizers('?only_with_upcoming=true')).toEqual(['Concept', 'Open']);
    });

    it('unlinks deleted venues, organizers and terms from their events', async () => {
      await api.createVenue({ venue: 'Zaal' }).expect(201);
      await api
        .create(
          {
            ...JAZZ,
            venue: 1,
            organizer: [{ organizer: 'Een' }, { organizer: 'Twee' }],
            categories: 'Jazz',
            tags: 'live',
          },
          'editor',
        )
        .expect(201);
      await t.http().delete(`${API}/venues/1`).set('Authorization', t.auth.editor).expect(200);
      await t
        .http()
        .delete(`${API}/organizers/1?force=true`)
        .set('Authorization', t.auth.editor)
        .expect(200);
      await t.http().delete(`${API}/categories/1`).set('Authorization', t.auth.editor).expect(200);
      const event = (await api.get('/events/1').expect(200)).body;
      expect([
        event.venue,
        names(event.organizer, 'organizer'),
        event.categories,
        names(event.tags, 'name'),
      ]).toEqual([[], ['Twee'], [], ['live']]);
    });
  });

  it('lists the event routes in the namespace index', async () => {
    const res = await t.http().get(API).expect(200);
    expect(Object.keys(res.body.routes)).toEqual(
      expect.arrayContaining([
        '/calendar/events/v1/events',
        '/calendar/events/v1/events/{id}',
        '/calendar/events/v1/events/by-slug/{slug}',
      ]),
    );
    const byId = res.body.routes['/calendar/events/v1/events/{id}'];
    expect(byId.methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    expect(
      byId.endpoints.find((e: { methods: string[] }) => e.methods.includes('GET')).args.password,
    ).toEqual({
      required: false,
      type: 'string',
      description: expect.any(String),
    });
  });
});
