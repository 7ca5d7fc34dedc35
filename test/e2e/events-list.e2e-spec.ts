import { dayAt, EMPTY_COST, eventRecord, eventRequests } from './helpers/events';
import { API, createTestApp, errorBody, TestApp, UserName } from './helpers/test-app';

type Body = Record<string, unknown>;

describe('event lists', () => {
  let t: TestApp;
  let api: ReturnType<typeof eventRequests>;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    // One port for the whole suite, so expected links can be written out.
    await t.app.listen(0, '127.0.0.1');
    const address = t.app.getHttpServer().address() as { port: number };
    base = `http://127.0.0.1:${address.port}${API}`;
    api = eventRequests(t);
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  /** Creates events in order (IDs 1, 2, …) as the author unless told. */
  async function seed(events: Body[], user: UserName = 'author'): Promise<void> {
    for (const event of events) await api.create(event, user).expect(201);
  }
  const event = (title: string, start: string, end = start, extra: Body = {}) => ({
    title,
    start_date: start,
    end_date: end,
    ...extra,
  });
  const list = async (query: string, user?: UserName) =>
    (await api.get(`/events${query}`, user).expect(200)).body;
  const titles = async (query: string, user?: UserName) =>
    (await list(query, user)).events.map((e: { title: string }) => e.title);
  const invalid = async (query: string, name: string, user?: UserName) => {
    const res = await api.get(`/events${query}`, user).expect(400);
    expect(res.body).toEqual(errorBody('rest_invalid_param', 400, { [name]: expect.any(String) }));
  };

  describe('default window and order', () => {
    it('lists from yesterday 00:00:00 to 24 months ahead, by start then ID, without hidden events', async () => {
      await seed([
        event('Eergisteren', dayAt(-2, '23:00:00'), dayAt(-2, '23:30:00')),
        event('Gisteren', dayAt(-1, '00:30:00')),
        event('Vanavond', dayAt(0, '18:00:00')),
        event('Vanochtend', dayAt(0, '09:00:00')),
        event('Ook vanochtend', dayAt(0, '09:00:00')),
        event('Verborgen', dayAt(0, '10:00:00'), dayAt(0, '10:00:00'), {
          hide_from_listings: true,
        }),
        event('Over 23 maanden', dayAt(690)),
        event('Over 25 maanden', dayAt(760)),
      ]);
      const body = await list('');
      expect(body).toEqual({
        events: expect.any(Array),
        rest_url: `${base}/events?page=1`,
        total: 5,
        total_pages: 1,
        ical_url: `${base}/events.ics`,
      });
      expect(body.events.map((e: { title: string }) => e.title)).toEqual([
        'Gisteren',
        'Vanochtend',
        'Ook vanochtend',
        'Vanavond',
        'Over 23 maanden',
      ]);
      expect(body.events[0]).toEqual(
        eventRecord(2, {
          ...event('Gisteren', dayAt(-1, '00:30:00')),
          slug: 'gisteren',
          rest_url: `${base}/events/2`,
        }),
      );
      // Still readable by ID.
      await api.get('/events/6').expect(200);
    });

    it('keeps events starting in the window but ending after it out (end_date: ending on or before)', async () => {
      await seed([event('Lang', dayAt(1), dayAt(800)), event('Kort', dayAt(1))]);
      expect(await titles('')).toEqual(['Kort']);
    });
  });

  describe('date filters', () => {
    it('answers the worked example: whole days by default, exact times with strict_dates', async () => {
      await seed([
        event('A', '2031-03-10 16:00:00', '2031-03-10 16:30:00'),
        event('B', '2031-03-10 20:00:00', '2031-03-10 20:30:00'),
        event('C', '2031-03-09 21:00:00', '2031-03-09 22:00:00'),
        event('D', '2031-03-11 09:00:00', '2031-03-11 10:00:00'),
      ]);
      const window = '?start_date=2031-03-10%2015:00:00&end_date=2031-03-10%2018:00:00';
      expect(await titles(window)).toEqual(['A', 'B']);
      expect(await titles(`${window}&strict_dates=false`)).toEqual(['A', 'B']);
      expect(await titles(`${window}&strict_dates=true`)).toEqual(['A']);
      expect(await titles('?start_date=2031-03-09&end_date=2031-03-11')).toEqual([
        'C',
        'A',
        'B',
        'D',
      ]);
    });

    it('filters on starts_before, starts_after, ends_before and ends_after, dropping the default window', async () => {
      await seed([
        event('E1', '2031-01-05 10:00:00', '2031-01-05 12:00:00'),
        event('E2', '2031-01-06 10:00:00', '2031-01-08 10:00:00'),
        event('E3', '2031-01-10 10:00:00', '2031-01-10 11:00:00'),
        event('Nu', dayAt(1)),
      ]);
      const cases: Array<[string, string[]]> = [
        ['?starts_after=2031-01-06 12:00', ['E2', 'E3']],
        ['?starts_after=2031-01-06 12:00&strict_dates=1', ['E3']],
        ['?starts_before=2031-01-06 08:00', ['Nu', 'E1', 'E2']],
        ['?starts_before=2031-01-06 08:00&strict_dates=true', ['Nu', 'E1']],
        ['?ends_after=2031-01-08', ['E2', 'E3']],
        ['?ends_after=2031-01-08 12:00&strict_dates=yes', ['E3']],
        ['?ends_before=2031-01-08', ['Nu', 'E1', 'E2']],
        ['?starts_after=2031-01-05&ends_before=2031-01-08', ['E1', 'E2']],
        ['?start_date=2031-01-06&starts_before=2031-01-10', ['E2', 'E3']],
        ['?start_date=2031-01-06', []],
        ['?end_date=2031-01-08', ['Nu', 'E1', 'E2']],
      ];
      for (const [query, expected] of cases) {
        expect([query, await titles(query.replace(/ /g, '%20'))]).toEqual([query, expected]);
      }
    });

    it('reads unix timestamps and ISO dates with offsets', async () => {
      await seed([event('A', '2031-03-10 16:00:00', '2031-03-10 16:30:00')]);
      const start = Date.UTC(2031, 2, 10, 15) / 1000;
      expect(
        await titles(`?start_date=${start}&end_date=2031-03-10T18:30:00%2B02:00&strict_dates=true`),
      ).toEqual(['A']);
      expect(
        await titles(`?start_date=${start + 3601}&strict_dates=true&end_date=2031-12-31`),
      ).toEqual([]);
    });
  });

  describe('other filters', () => {
    it('searches every word (a word start) in title, excerpt or description of the shown language', async () => {
      await seed([
        event('Jazz in het park', dayAt(1), dayAt(1), { excerpt: 'Buiten' }),
        event('Klassiek concert', dayAt(2), dayAt(2), {
          description: '<p>Met strijkers en JAZZ-invloeden</p>',
        }),
        event('Theater 100%', dayAt(3)),
        event('Rock night', dayAt(4), dayAt(4), { language: 'en' }),
        event('Rots', dayAt(5)),
      ]);
      await api.update(5, { title: 'Rock theatre' }, 'author', '?language=en').expect(200);
      expect(await titles('?search=jazz')).toEqual(['Jazz in het park', 'Klassiek concert']);
      expect(await titles('?search=JAZZ%20buiten')).toEqual(['Jazz in het park']);
      expect(await titles('?search=%20strijkers%20%20jazz%20')).toEqual(['Klassiek concert']);
      // Search words are runs of letters and digits; shorter than 3 characters they are left out.
      expect(await titles('?search=100%25')).toEqual(['Theater 100%']);
      expect(await titles('?search=10%25')).toHaveLength(5);
      expect(await titles('?search=_')).toHaveLength(5);
      // Event 4 has only English texts: they are what it shows in Dutch too; event 5 shows "Rots".
      expect(await titles('?search=rock')).toEqual(['Rock night']);
      expect(await titles('?search=rock&language=en')).toEqual(['Rock night', 'Rock theatre']);
      expect(await titles('?search=')).toHaveLength(5);
    });

    it('filters on categories and tags by slug or ID (any of them)', async () => {
      await seed(
        [
          event('Jazz', dayAt(1), dayAt(1), { categories: 'Jazz', tags: 'buiten' }),
          event('Klassiek', dayAt(2), dayAt(2), { categories: 'Klassiek' }),
          event('Pop', dayAt(3), dayAt(3), { categories: 'Pop', tags: 'buiten' }),
        ],
        'editor',
      );
      expect(await titles('?categories=jazz')).toEqual(['Jazz']);
      // IDs: Jazz 1, buiten 2 (a tag), Klassiek 3, Pop 4.
      expect(await titles('?categories=jazz,3')).toEqual(['Jazz', 'Klassiek']);
      expect(await titles('?categories[]=1&categories[]=klassiek')).toEqual(['Jazz', 'Klassiek']);
      expect(await titles('?tags=buiten')).toEqual(['Jazz', 'Pop']);
      expect(await titles('?tags=2')).toEqual(['Jazz', 'Pop']);
      expect(await titles('?tags=buiten&categories=pop,klassiek')).toEqual(['Pop']);
      await invalid('?categories=bestaat-niet', 'categories');
      await invalid('?categories=99', 'categories');
      await invalid('?categories=2', 'categories');
      await invalid('?tags=jazz', 'tags');
    });

    it('filters on venue and organizer IDs (any of them); unknown IDs are 400', async () => {
      await seed([
        event('Een', dayAt(1), dayAt(1), {
          venue: { venue: 'Zaal 1' },
          organizer: [{ organizer: 'Org 1' }],
        }),
        event('Twee', dayAt(2), dayAt(2), {
          venue: { venue: 'Zaal 2' },
          organizer: [{ organizer: 'Org 2' }, { organizer: 'Org 1' }],
        }),
        event('Drie', dayAt(3)),
      ]);
      expect(await titles('?venue=1')).toEqual(['Een']);
      expect(await titles('?venue=1,2')).toEqual(['Een', 'Twee']);
      expect(await titles('?organizer=1')).toEqual(['Een', 'Twee']);
      expect(await titles('?organizer[]=2')).toEqual(['Twee']);
      expect(await titles('?organizer=2&venue=1')).toEqual([]);
      await invalid('?venue=3', 'venue');
      await invalid('?organizer=1,9', 'organizer');
    });

    it('answers a hidden venue or organizer ID as it answers an unknown one', async () => {
      await seed([
        event('Verborgen zaal', dayAt(1), dayAt(1), {
          venue: { venue: 'Zaal', status: 'draft' },
          organizer: [{ organizer: 'Org', status: 'draft' }],
        }),
      ]);
      const notFound = (name: string, language: string) => ({
        code: 'rest_invalid_param',
        message:
          language === 'en' ? `Invalid parameter(s): ${name}` : `Ongeldige parameter(s): ${name}`,
        data: {
          status: 400,
          params: {
            [name]:
              language === 'en'
                ? `${name} refers to a record that does not exist.`
                : `${name} verwijst naar een record dat niet bestaat.`,
          },
        },
      });
      for (const name of ['venue', 'organizer']) {
        const hidden = 1;
        for (const language of ['nl', 'en']) {
          for (const id of [hidden, 99]) {
            const res = await api.get(`/events?${name}=${id}&language=${language}`).expect(400);
            expect(res.body).toEqual(notFound(name, language));
          }
        }
        // Who may see the draft filters on it; an unknown ID stays 400 for them too.
        expect(await titles(`?${name}=${hidden}&status=draft,publish`, 'editor')).toEqual([
          'Verborgen zaal',
        ]);
        expect((await api.get(`/events?${name}=99`, 'editor').expect(400)).body).toEqual(
          notFound(name, 'nl'),
        );
      }
    });

    it('filters on featured, ticketed and post_parent', async () => {
      await seed([
        event('Uitgelicht', dayAt(1), dayAt(1), { featured: true }),
        event('Tickets', dayAt(2), dayAt(2), { ticketed: true, post_parent: 1 }),
        event('Gewoon', dayAt(3), dayAt(3), { post_parent: 1 }),
      ]);
      expect(await titles('?featured=true')).toEqual(['Uitgelicht']);
      expect(await titles('?featured=0')).toEqual(['Tickets', 'Gewoon']);
      expect(await titles('?ticketed=yes')).toEqual(['Tickets']);
      expect(await titles('?ticketed=false')).toEqual(['Uitgelicht', 'Gewoon']);
      expect(await titles('?post_parent=1')).toEqual(['Tickets', 'Gewoon']);
      expect(await titles('?post_parent=2')).toEqual([]);
      await invalid('?post_parent=9', 'post_parent');
    });

    it('filters on the venue coordinates and a radius around a point', async () => {
      const venue = (name: string, lat?: number, lng?: number) => ({
        venue: name,
        geo_lat: lat,
        geo_lng: lng,
      });
      await seed([
        event('Amsterdam', dayAt(1), dayAt(1), { venue: venue('Paradiso', 52.3622, 4.8838) }),
        event('Utrecht', dayAt(2), dayAt(2), { venue: venue('Tivoli', 52.0907, 5.1214) }),
        event('Parijs', dayAt(3), dayAt(3), { venue: venue('Olympia', 48.8704, 2.3282) }),
        event('Onbekend', dayAt(4), dayAt(4), { venue: venue('Ergens') }),
        event('Nergens', dayAt(5)),
      ]);
      expect(await titles('?geoloc=true')).toEqual(['Amsterdam', 'Utrecht', 'Parijs']);
      expect(await titles('?geoloc=false')).toEqual(['Onbekend', 'Nergens']);
      const point = '?geoloc_lat=52.3676&geoloc_lng=4.9041';
      expect(await titles(point)).toEqual(['Amsterdam']);
      expect(await titles(`${point}&geoloc_radius=50`)).toEqual(['Amsterdam', 'Utrecht']);
      expect(await titles(`${point}&geoloc_radius=1`)).toEqual([]);
      expect(await titles(`${point}&geoloc_radius=500`)).toEqual([
        'Amsterdam',
        'Utrecht',
        'Parijs',
      ]);
      expect(await titles('?geoloc_lat=-33.86&geoloc_lng=151.2&geoloc_radius=20000')).toEqual([
        'Amsterdam',
        'Utrecht',
        'Parijs',
      ]);
      const alone = await api.get('/events?geoloc_lat=52.3').expect(400);
      expect(alone.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          geoloc_lat: 'geoloc_lat moet samen met geoloc_lng worden verstuurd.',
        }),
      );
      await invalid('?geoloc_lng=4.9', 'geoloc_lng');
      await invalid('?geoloc_radius=5', 'geoloc_radius');
    });

    it('lists only the IDs of include, by ID, ignoring dates and hide_from_listings', async () => {
      await seed([
        event('Later', '2035-01-01'),
        event('Verborgen', dayAt(1), dayAt(1), { hide_from_listings: true }),
        event('Vroeg', '2020-01-01'),
        event('Niet gevraagd', dayAt(1)),
      ]);
      await api.create(event('Concept', dayAt(1), dayAt(1), { status: 'draft' })).expect(201);
      expect(await titles('?include=3,1,2,5')).toEqual(['Later', 'Verborgen', 'Vroeg']);
      expect(await titles('?include=3,1,2,5', 'author')).toEqual([
        'Later',
        'Verborgen',
        'Vroeg',
        'Concept',
      ]);
      expect(await titles('?include[]=4&start_date=2040-01-01')).toEqual(['Niet gevraagd']);
      expect(await titles('?include=4&featured=true')).toEqual([]);
    });

    it('combines filters with AND', async () => {
      await seed(
        [
          event('Raak', '2031-05-01 20:00', '2031-05-01 22:00', {
            featured: true,
            categories: 'Jazz',
          }),
          event('Niet uitgelicht', '2031-05-01 20:00', '2031-05-01 22:00', { categories: 'Jazz' }),
          event('Andere dag', '2031-05-03 20:00', '2031-05-03 22:00', {
            featured: true,
            categories: 'Jazz',
          }),
          event('Andere categorie', '2031-05-01 20:00', '2031-05-01 22:00', {
            featured: true,
            categories: 'Pop',
          }),
        ],
        'editor',
      );
      expect(
        await titles(
          '?start_date=2031-05-01&end_date=2031-05-01&featured=true&categories=jazz&search=raak',
        ),
      ).toEqual(['Raak']);
      expect(
        await titles('?start_date=2031-05-01&end_date=2031-05-03&featured=true&categories=jazz'),
      ).toEqual(['Raak', 'Andere dag']);
    });
  });

  describe('status and roles', () => {
    beforeEach(async () => {
      await seed(
        [
          event('Gepubliceerd', dayAt(1)),
          event('Eigen concept', dayAt(2), dayAt(2), { status: 'draft' }),
        ],
        'contributor',
      );
      await api.update(1, { status: 'publish' }, 'editor').expect(200);
      await seed([
        event('Ander concept', dayAt(3), dayAt(3), { status: 'draft' }),
        event('Privé', dayAt(4), dayAt(4), { status: 'private' }),
      ]);
      await seed([event('Weggegooid', dayAt(5))]);
      await api.remove('/events/5').expect(200);
    });

    it('shows anonymous callers and subscribers only published events', async () => {
      expect(await titles('')).toEqual(['Gepubliceerd']);
      expect(await titles('?status=publish', 'subscriber')).toEqual(['Gepubliceerd']);
      await invalid('?status=draft', 'status');
      await invalid('?status=publish,private', 'status', 'subscriber');
    });

    it('shows contributors and authors their own unpublished events', async () => {
      expect(await titles('', 'contributor')).toEqual(['Gepubliceerd', 'Eigen concept']);
      expect(await titles('', 'author')).toEqual(['Gepubliceerd', 'Ander concept', 'Privé']);
      expect(await titles('?status=draft', 'author')).toEqual(['Ander concept']);
      expect(await titles('?status=trash', 'author')).toEqual(['Weggegooid']);
    });

    it('shows editors everything but trash by default, and any status they ask for', async () => {
      expect(await titles('', 'editor')).toEqual([
        'Gepubliceerd',
        'Eigen concept',
        'Ander concept',
        'Privé',
      ]);
      expect(await titles('?status=draft,trash', 'editor')).toEqual([
        'Eigen concept',
        'Ander concept',
        'Weggegooid',
      ]);
      expect(await titles('?status[]=private', 'administrator')).toEqual(['Privé']);
      await invalid('?status=verwijderd', 'status', 'editor');
    });
  });

  describe('pagination', () => {
    it('pages with links that keep the filters, headers, a cap on per_page and 404 past the end', async () => {
      const hour = (i: number) => dayAt(1, `${String(i + 8).padStart(2, '0')}:00:00`);
      await seed(
        Array.from({ length: 12 }, (_, i) =>
          event(`Event ${i + 1}`, hour(i), hour(i), {
            featured: true,
            categories: i % 2 ? 'Een' : 'Twee',
          }),
        ),
      );
      const query =
        'featured=true&venue=&per_page=5&search=event&categories[]=een&categories[]=twee';
      const first = await api.get(`/events?${query}`).expect(200);
      const link = (page?: number) =>
        `${base}/events?featured=true&venue=&per_page=5&search=event&categories=een,twee${page ? `&page=${page}` : ''}`;
      expect({ ...first.body, events: first.body.events.length }).toEqual({
        events: 5,
        rest_url: link(1),
        next_rest_url: link(2),
        total: 12,
        total_pages: 3,
        ical_url: `${base}/events.ics?featured=true&venue=&search=event&categories=een,twee`,
      });
      expect(first.headers['x-total']).toBe('12');
      expect(first.headers['x-totalpages']).toBe('3');
      expect(first.headers.link).toBe(`<${link(2)}>; rel="next"`);

      const second = await api.get(`/events?${query}&page=2`).expect(200);
      expect({
        ...second.body,
        events: second.body.events.map((e: { id: number }) => e.id),
      }).toEqual({
        events: [6, 7, 8, 9, 10],
        rest_url: link(2),
        next_rest_url: link(3),
        previous_rest_url: link(),
        total: 12,
        total_pages: 3,
        ical_url: `${base}/events.ics?featured=true&venue=&search=event&categories=een,twee`,
      });
      expect(second.headers.link).toBe(`<${link(3)}>; rel="next", <${link()}>; rel="prev"`);

      const last = await api.get(`/events?${query}&page=3`).expect(200);
      expect({ ...last.body, events: last.body.events.length }).toEqual({
        events: 2,
        rest_url: link(3),
        previous_rest_url: link(2),
        total: 12,
        total_pages: 3,
        ical_url: `${base}/events.ics?featured=true&venue=&search=event&categories=een,twee`,
      });
      const past = await api.get(`/events?${query}&page=4`).expect(404);
      expect(past.body).toEqual(errorBody('event-archive-page-not-found', 404));

      const capped = await list('?per_page=500');
      expect(capped).toEqual({
        events: expect.any(Array),
        rest_url: `${base}/events?per_page=500&page=1`,
        total: 12,
        total_pages: 1,
        ical_url: `${base}/events.ics`,
      });
    });

    it('answers an empty first page with 200 and no links', async () => {
      expect(await list('?page=1')).toEqual({
        events: [],
        rest_url: `${base}/events?page=1`,
        total: 0,
        total_pages: 0,
        ical_url: `${base}/events.ics`,
      });
      const res = await api.get('/events?page=2').expect(404);
      expect(res.body).toEqual(errorBody('event-archive-page-not-found', 404));
    });
  });

  describe('password-protected events', () => {
    /** "Geheim", protected by "sesam", on a venue "Zaal" (ID 1) created first. */
    const protectedEvent = async (extra: Body, others: Body[] = []) => {
      await api.createVenue({ venue: 'Zaal' }).expect(201);
      const start = '2031-05-01 20:00:00';
      const end = '2031-05-01 22:00:00';
      await seed(
        [event('Geheim', start, end, { password: 'sesam', ...extra }), ...others],
        'editor',
      );
    };

    it('blanks them unless the password matches or the caller may edit them', async () => {
      await protectedEvent({
        description: 'Beschrijving',
        excerpt: 'Kort',
        image: 'https://cdn.example.com/a.jpg',
        cost: '€10',
        website: 'https://geheim.example.com',
        featured: true,
        categories: 'Jazz',
        tags: 'buiten',
        venue: 1,
        organizer: { organizer: 'Org' },
      });
      const window = '?start_date=2031-05-01&end_date=2031-05-01';
      const blank = await list(window);
      expect(blank.events).toEqual([
        eventRecord(1, {
          title: 'Geheim',
          slug: 'geheim',
          author: '2',
          rest_url: `${base}/events/1`,
          start_date: '2031-05-01 20:00:00',
          end_date: '2031-05-01 22:00:00',
          password_protected: true,
          website: '',
          all_day: null,
          show_map: null,
          show_map_link: null,
          hide_from_listings: null,
          sticky: null,
          featured: null,
          ticketed: null,
          cost_details: {
            currency_symbol: '€',
            currency_code: 'EUR',
            currency_position: 'prefix',
            values: [],
          },
        }),
      ]);
      expect((await list(`${window}&password=fout`)).events).toEqual(blank.events);
      const full = (await list(`${window}&password=sesam`)).events[0];
      expect(full).toMatchObject({
        description: 'Beschrijving',
        excerpt: 'Kort',
        cost: '€10',
        cost_details: {
          ...EMPTY_COST,
          currency_symbol: '€',
          currency_code: 'EUR',
          currency_position: 'prefix',
          values: [10],
        },
        website: 'https://geheim.example.com',
        featured: true,
        password_protected: true,
        venue: { id: 1 },
        organizer: [{ id: 1 }],
        categories: [{ name: 'Jazz' }],
        tags: [{ name: 'buiten' }],
      });
      expect((await list(window, 'editor')).events[0]).toEqual(full);
      expect((await list(window, 'author')).events).toEqual(blank.events);
    });

    it('matches the links a blanked event hides in filters (docs/decisions.md)', async () => {
      await protectedEvent(
        { categories: 'Jazz', tags: 'buiten', venue: 1, organizer: { organizer: 'Org' } },
        [event('Open', '2031-05-01 18:00:00', '2031-05-01 19:00:00', { categories: 'Pop' })],
      );
      const window = '?start_date=2031-05-01&end_date=2031-05-01';
      for (const filter of ['categories=jazz', 'tags=buiten', 'venue=1', 'organizer=1']) {
        const found = await list(`${window}&${filter}`);
        expect({ filter, total: found.total }).toEqual({ filter, total: 1 });
        expect(found.events[0]).toMatchObject({
          title: 'Geheim',
          password_protected: true,
          categories: [],
          tags: [],
          venue: [],
          organizer: [],
        });
      }
      expect(await titles(`${window}&categories=pop`)).toEqual(['Open']);
    });
  });

  describe('validation', () => {
    it.each([
      ['start_date', 'gisteren'],
      ['end_date', '2031-02-30'],
      ['starts_before', 'x'],
      ['starts_after', '31-12-2031'],
      ['ends_before', '2031-01-01T25:00'],
      ['ends_after', 'morgen'],
      ['strict_dates', 'soms'],
      ['search', 'x'.repeat(201)],
      ['categories', 'x'.repeat(201)],
      ['tags', Array.from({ length: 101 }, (_, i) => `t${i}`).join(',')],
      ['venue', 'abc'],
      ['venue', '0'],
      ['organizer', '-1'],
      ['organizer', '2147483648'],
      ['featured', 'misschien'],
      ['status', 'weg'],
      ['include', '1,x'],
      ['post_parent', '0'],
      ['ticketed', '2'],
      ['geoloc', 'ja'],
      ['geoloc_lat', '91'],
      ['geoloc_lng', '-180.5'],
      ['geoloc_radius', '0'],
      ['geoloc_radius', 'ver'],
      ['page', '0'],
      ['per_page', '-1'],
      ['context', 'alles'],
      ['language', 'de'],
      ['password', 'x'.repeat(256)],
    ])('rejects a bad %s with 400 naming it (case %#)', async (name, value) => {
      await invalid(`?${name}=${encodeURIComponent(value)}`, name);
    });

    it('needs a caller for context=edit', async () => {
      const res = await api.get('/events?context=edit').expect(401);
      expect(res.body).toEqual(errorBody('rest_forbidden', 401));
    });
  });
});
