import { Writes } from '../../src/writes/writes.service';
import { OrganizersService } from '../../src/organizers/organizers.service';
import {
  apiUrl,
  contextFor,
  DAY,
  eventOrganizerIds,
  expectedRecord,
  insertEvent,
  nowSeconds,
  recordKeys,
} from './helpers/content';
import { API, createTestApp, errorBody, TestApp, UserName, USERS } from './helpers/test-app';

const MOJO = {
  organizer: 'Mojo Concerts',
  description: 'Organiseert <b>concerten</b> en festivals.',
  excerpt: 'Concertpromotor',
  phone: '+31 20 555 0100',
  website: 'https://www.mojo.nl',
  email: 'info@mojo.nl',
  image: 7,
  date: '2025-07-01 12:00:00',
};

const organizerRecord = (
  id: number,
  name: string,
  slug: string,
  fields: Record<string, unknown> = {},
) => expectedRecord('organizer', id, name, slug, fields);

/** Mojo as created from MOJO; the site zone is Europe/Amsterdam (CEST in July). */
function mojoRecord(id = 1, fields: Record<string, unknown> = {}) {
  return organizerRecord(id, 'Mojo Concerts', 'mojo-concerts', {
    description: 'Organiseert <b>concerten</b> en festivals.',
    excerpt: 'Concertpromotor',
    image: { id: 7, url: null, extension: null },
    phone: '+31 20 555 0100',
    website: 'https://www.mojo.nl',
    email: 'info@mojo.nl',
    date: '2025-07-01 12:00:00',
    date_utc: '2025-07-01 10:00:00',
    ...fields,
  });
}

describe('organizers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SITE_TIMEZONE: 'Europe/Amsterdam' });
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  const create = (body: object, user: UserName = 'author', query = '') =>
    t.http().post(`${API}/organizers${query}`).set('Authorization', t.auth[user]).send(body);
  const list = (query: string, user?: UserName) => {
    const req = t.http().get(`${API}/organizers${query}`);
    return user ? req.set('Authorization', t.auth[user]) : req;
  };
  const names = (body: { organizers: Array<{ organizer: string }> }) =>
    body.organizers.map((o) => o.organizer);

  describe('create and read', () => {
    it('creates an organizer: 201, Location, the whole record in the documented order', async () => {
      const res = await create(MOJO).expect(201);
      expect(res.body).toEqual(mojoRecord());
      expect(res.headers.location).toEqual(res.body.rest_url);
      expect(Object.keys(res.body)).toEqual(recordKeys('organizer', ['phone', 'website', 'email']));
    });

    it('reads by ID and by slug with schema.org Organization JSON-LD', async () => {
      await create(MOJO).expect(201);
      const jsonLd = {
        '@context': 'http://schema.org',
        '@type': 'Organization',
        name: 'Mojo Concerts',
        description: 'Concertpromotor',
        url: 'http://calendar.test/nl/organizer/mojo-concerts/',
        telephone: '+31 20 555 0100',
        email: 'info@mojo.nl',
        sameAs: 'https://www.mojo.nl',
      };
      const byId = await t.http().get(`${API}/organizers/1`).expect(200);
      expect(byId.body).toEqual(mojoRecord(1, { json_ld: jsonLd }));
      const bySlug = await t.http().get(`${API}/organizers/by-slug/mojo-concerts`).expect(200);
      expect(bySlug.body).toEqual(mojoRecord(1, { json_ld: jsonLd }));
      const listed = await list('').expect(200);
      expect(listed.body).toEqual({
        organizers: [mojoRecord()],
        rest_url: apiUrl('/organizers?page=1'),
        total: 1,
        total_pages: 1,
      });
      const missing = await t
        .http()
        .get(`${API}/organizers/by-slug/${'x'.repeat(300)}`)
        .expect(404);
      expect(missing.body).toEqual(errorBody('rest-organizer-not-found', 404));
    });

    it('reads `date` in the site zone and `date_utc` in UTC', async () => {
      const winter = await create({ organizer: 'Winter', date_utc: '2025-01-01 12:00:00' }).expect(
        201,
      );
      expect(winter.body).toEqual(
        organizerRecord(1, 'Winter', 'winter', {
          date: '2025-01-01 13:00:00',
          date_utc: '2025-01-01 12:00:00',
        }),
      );
      const iso = await create({ organizer: 'Iso', date: '2025-01-01T12:00:00Z' }).expect(201);
      expect(iso.body.date).toBe('2025-01-01 13:00:00');
      expect(iso.body.date_utc).toBe('2025-01-01 12:00:00');
      const day = await create({ organizer: 'Day', date: '2025-08-15' }).expect(201);
      expect(day.body.date_utc).toBe('2025-08-14 22:00:00');
    });
  });

  describe('update', () => {
    it('updates partially with POST, PUT and PATCH, by ID and by slug', async () => {
      await create(MOJO).expect(201);
      const send = (method: 'post' | 'put' | 'patch', path: string, body: object) =>
        t.http()[method](`${API}/organizers${path}`).set('Authorization', t.auth.author).send(body);

      const post = await send('post', '/1', { phone: '+31 20 555 0199' }).expect(200);
      expect(post.body).toEqual(mojoRecord(1, { phone: '+31 20 555 0199' }));
      const put = await send('put', '/1', { email: '', image: null }).expect(200);
      const { email: _e, ...withoutEmail } = mojoRecord(1, {
        phone: '+31 20 555 0199',
        image: false,
      });
      expect(put.body).toEqual(withoutEmail);
      const patch = await send('patch', '/1', {
        website: 'http://mojo.example',
        status: 'draft',
      }).expect(200);
      const drafted = { ...withoutEmail, website: 'http://mojo.example', status: 'draft' };
      expect(patch.body).toEqual(drafted);

      const bySlugPost = await send('post', '/by-slug/mojo-concerts', {
        excerpt: 'Promotor',
      }).expect(200);
      expect(bySlugPost.body).toEqual({ ...drafted, excerpt: 'Promotor' });
      const bySlugPut = await send('put', '/by-slug/mojo-concerts', { slug: 'mojo' }).expect(200);
      const renamed = {
        ...drafted,
        excerpt: 'Promotor',
        slug: 'mojo',
        url: 'http://calendar.test/nl/organizer/mojo/',
      };
      expect(bySlugPut.body).toEqual(renamed);
      const bySlugPatch = await send('patch', '/by-slug/mojo', {
        status: 'publish',
        date: '2025-01-01 12:00:00',
      }).expect(200);
      expect(bySlugPatch.body).toEqual({
        ...renamed,
        status: 'publish',
        date: '2025-01-01 12:00:00',
        date_utc: '2025-01-01 11:00:00',
      });
    });

    it('gives 20 concurrent creates with the same name 20 distinct slugs', async () => {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => create({ organizer: 'Same Promoter' })),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(new Set(responses.map((r) => r.body.slug as string)).size).toBe(20);
      expect(responses.map((r) => r.body.slug as string)).toContain('same-promoter-20');
    });
  });

  describe('languages', () => {
    it('falls back to Dutch texts for English readers until an English translation is added', async () => {
      await create({ organizer: 'Stichting Jazz', excerpt: 'Jazz in de stad' }).expect(201);
      const dutch = organizerRecord(1, 'Stichting Jazz', 'stichting-jazz', {
        excerpt: 'Jazz in de stad',
      });
      const fallback = await t
        .http()
        .get(`${API}/organizers/by-slug/stichting-jazz?language=en`)
        .expect(200);
      expect(fallback.body).toEqual({ ...dutch, json_ld: expect.any(Object) });

      const english = await t
        .http()
        .put(`${API}/organizers/by-slug/stichting-jazz?language=en`)
        .set('Authorization', t.auth.author)
        .send({ organizer: 'Jazz Foundation' })
        .expect(200);
      expect(english.body).toEqual(
        organizerRecord(1, 'Jazz Foundation', 'jazz-foundation', {
          language: 'en',
          languages: ['nl', 'en'],
        }),
      );
      const dutchAgain = await t
        .http()
        .get(`${API}/organizers/by-slug/jazz-foundation?language=nl`)
        .expect(200);
      expect(dutchAgain.body).toEqual({
        ...dutch,
        languages: ['nl', 'en'],
        json_ld: expect.any(Object),
      });

      const missing = await t
        .http()
        .patch(`${API}/organizers/1`)
        .set('Authorization', t.auth.author)
        .send({ language: 'en', organizer: '' })
        .expect(400);
      expect(missing.body).toEqual(
        errorBody('rest_invalid_param', 400, { organizer: 'organizer must not be empty.' }),
      );
    });
  });

  describe('validation', () => {
    const invalid = async (body: object, params: unknown) => {
      const res = await create(body, 'author', '?language=en').expect(400);
      expect(res.body).toEqual(errorBody('rest_invalid_param', 400, params));
    };

    it('checks the name, e-mail, website, status and dates', async () => {
      const missing = await create({ email: 'a@b.nl' }).expect(400);
      expect(missing.body).toEqual(errorBody('rest_missing_callback_param', 400, ['organizer']));
      const cases: Array<[string, unknown, string]> = [
        ['organizer', '', 'must not be empty.'],
        ['email', 'not-an-address', 'is not a valid e-mail address.'],
        ['email', `${'a'.repeat(250)}@b.nl`, 'is too long.'],
        ['email', 42, 'is not of type string.'],
        ['website', 'www.mojo.nl', 'is not a valid URL.'],
        ['website', `https://x.test/${'a'.repeat(2040)}`, 'is not a valid URL.'],
        ['phone', 'x'.repeat(256), 'is too long.'],
        ['status', 'published', 'is not one of the allowed values.'],
        ['date', '31-12-2024', 'is not a valid date.'],
        ['description', 'x'.repeat(100001), 'is too long.'],
        ['slug', 's'.repeat(201), 'is too long.'],
      ];
      for (const [name, value, reason] of cases)
        await invalid({ organizer: 'O', [name]: value }, { [name]: `${name} ${reason}` });
      const nl = await create({ organizer: 'O', email: 'nope' }).expect(400);
      expect(nl.body).toEqual(
        errorBody('rest_invalid_param', 400, { email: 'email is geen geldig e-mailadres.' }),
      );
    });

    it('lets only editors set another author', async () => {
      const res = await create({ organizer: 'O', author: USERS.editor.id }, 'author').expect(403);
      expect(res.body).toEqual(errorBody('rest_forbidden', 403));
      const editor = await create(
        { organizer: 'O', author: String(USERS.author.id) },
        'editor',
      ).expect(201);
      expect(editor.body.author).toBe('3');
    });
  });

  describe('roles and visibility', () => {
    it('applies the role table', async () => {
      const anonymous = await t
        .http()
        .post(`${API}/organizers`)
        .send({ organizer: 'X' })
        .expect(401);
      expect(anonymous.body).toEqual(errorBody('rest_forbidden', 401));
      expect(anonymous.headers['www-authenticate']).toBe('Bearer');
      await create({ organizer: 'X' }, 'subscriber').expect(403);

      await create({ organizer: 'Editor Org' }, 'editor').expect(201);
      const contributor = await t
        .http()
        .patch(`${API}/organizers/1`)
        .set('Authorization', t.auth.contributor)
        .send({ phone: '1' })
        .expect(403);
      expect(contributor.body).toEqual(errorBody('rest_forbidden', 403));
      await t.http().delete(`${API}/organizers/1`).set('Authorization', t.auth.author).expect(403);

      const own = await create(
        { organizer: 'Contributor Org', status: 'draft' },
        'contributor',
      ).expect(201);
      expect(own.body.status).toBe('draft');
      await t
        .http()
        .patch(`${API}/organizers/2`)
        .set('Authorization', t.auth.contributor)
        .send({ phone: '1' })
        .expect(200);
      await t
        .http()
        .delete(`${API}/organizers/2`)
        .set('Authorization', t.auth.contributor)
        .expect(200);
    });

    it('hides drafts from everyone but their owner and editors', async () => {
      await create({ organizer: 'Secret', status: 'pending' }, 'author').expect(201);
      for (const user of [undefined, 'otherAuthor'] as const) {
        const req = t.http().get(`${API}/organizers/by-slug/secret`);
        const res = await (user ? req.set('Authorization', t.auth[user]) : req).expect(403);
        expect(res.body).toEqual(errorBody('organizer-not-accessible', 403));
      }
      await t.http().get(`${API}/organizers/1`).set('Authorization', t.auth.author).expect(200);
      await t
        .http()
        .get(`${API}/organizers/1`)
        .set('Authorization', t.auth.administrator)
        .expect(200);
      expect(names((await list('').expect(200)).body)).toEqual([]);
      expect(names((await list('?status=pending', 'author').expect(200)).body)).toEqual(['Secret']);
      expect(names((await list('?status=pending', 'otherAuthor').expect(200)).body)).toEqual([]);
    });
  });

  describe('delete', () => {
    it('trashes (410 again), force-deletes for editors, and unlinks events', async () => {
      await create(MOJO).expect(201); // 1
      await create({ organizer: 'Second' }).expect(201); // 2
      const event = await insertEvent(t, { organizerIds: [2, 1] });
      const other = await insertEvent(t, { organizerIds: [1] });

      const trashed = await t
        .http()
        .delete(`${API}/organizers/1`)
        .set('Authorization', t.auth.author)
        .expect(200);
      expect(trashed.body).toEqual(mojoRecord(1, { status: 'trash' }));
      expect(await eventOrganizerIds(t, event)).toEqual([2]);
      expect(await eventOrganizerIds(t, other)).toEqual([]);
      const again = await t
        .http()
        .delete(`${API}/organizers/by-slug/mojo-concerts`)
        .set('Authorization', t.auth.author)
        .expect(410);
      expect(again.body).toEqual(errorBody('organizer-is-in-trash', 410));
      const hidden = await t.http().get(`${API}/organizers/1`).expect(403);
      expect(hidden.body).toEqual(errorBody('organizer-not-accessible', 403));

      const restored = await t
        .http()
        .post(`${API}/organizers/1`)
        .set('Authorization', t.auth.author)
        .send({ status: 'publish' })
        .expect(200);
      expect(restored.body).toEqual(mojoRecord());

      const byAuthor = await t
        .http()
        .delete(`${API}/organizers/2?force=true`)
        .set('Authorization', t.auth.author)
        .expect(403);
      expect(byAuthor.body).toEqual(errorBody('rest_forbidden', 403));
      const forced = await t
        .http()
        .delete(`${API}/organizers/2?force=true`)
        .set('Authorization', t.auth.editor)
        .expect(200);
      expect(forced.body).toEqual(organizerRecord(2, 'Second', 'second'));
      expect(await eventOrganizerIds(t, event)).toEqual([]);
      await t.http().get(`${API}/organizers/2`).set('Authorization', t.auth.editor).expect(404);
    });
  });

  describe('list', () => {
    it('paginates newest first with links, headers and a 404 past the end', async () => {
      for (const [name, date] of [
        ['A', '2021-01-01'],
        ['B', '2023-01-01'],
        ['C', '2022-01-01'],
      ])
        await create({ organizer: name, date_utc: date }).expect(201);
      const first = await list('?per_page=1&search=').expect(200);
      expect(first.body).toEqual({
        organizers: [
          organizerRecord(2, 'B', 'b', {
            date: '2023-01-01 01:00:00',
            date_utc: '2023-01-01 00:00:00',
          }),
        ],
        rest_url: apiUrl('/organizers?per_page=1&search=&page=1'),
        next_rest_url: apiUrl('/organizers?per_page=1&search=&page=2'),
        total: 3,
        total_pages: 3,
      });
      expect(first.headers['x-total']).toBe('3');
      expect(first.headers['x-totalpages']).toBe('3');
      const second = await list('?per_page=1&page=2').expect(200);
      expect(names(second.body)).toEqual(['C']);
      expect(second.headers.link).toMatch(
        /^<http:\/\/127\.0\.0\.1:\d+\/calendar\/events\/v1\/organizers\?per_page=1&page=3>; rel="next", <http:\/\/127\.0\.0\.1:\d+\/calendar\/events\/v1\/organizers\?per_page=1>; rel="prev"$/,
      );
      const past = await list('?per_page=1&page=4').expect(404);
      expect(past.body).toEqual(errorBody('organizer-archive-page-not-found', 404));
    });

    it('searches name, texts, phone, e-mail and website', async () => {
      await create(MOJO).expect(201);
      await create({
        organizer: 'Paard',
        description: 'Poppodium in Den Haag',
        phone: '070 750 3434',
        email: 'tickets@paard.nl',
        website: 'https://paard.example.org',
      }).expect(201);
      const search = async (words: string) =>
        names((await list(`?search=${encodeURIComponent(words)}`).expect(200)).body);
      expect(await search('mojo.nl')).toEqual(['Mojo Concerts']);
      expect(await search('@PAARD.NL')).toEqual(['Paard']);
      expect(await search('070 750')).toEqual(['Paard']);
      expect(await search('example.org')).toEqual(['Paard']);
      expect(await search('den haag')).toEqual(['Paard']);
      expect(await search('concerten festivals')).toEqual(['Mojo Concerts']);
      expect(await search('nl')).toEqual(['Paard', 'Mojo Concerts']);
      expect(await search('paard mojo')).toEqual([]);
    });

    it('filters by event, has_events and only_with_upcoming through event_organizers', async () => {
      await create({ organizer: 'Upcoming' }).expect(201); // 1
      await create({ organizer: 'Past' }).expect(201); // 2
      await create({ organizer: 'Pending Only' }).expect(201); // 3
      await create({ organizer: 'Idle' }).expect(201); // 4
      const upcoming = await insertEvent(t, { organizerIds: [1, 3] });
      await insertEvent(t, { organizerIds: [2], startAt: nowSeconds() - DAY });
      await insertEvent(t, {
        organizerIds: [3],
        status: 'pending',
        authorId: USERS.otherAuthor.id,
      });
      await insertEvent(t, { organizerIds: [4], status: 'trash' });

      expect(names((await list(`?event=${upcoming}`).expect(200)).body)).toEqual([
        'Pending Only',
        'Upcoming',
      ]);
      const unknown = await list('?event=12345&language=en').expect(400);
      expect(unknown.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          event: 'event refers to a record that does not exist.',
        }),
      );
      expect(names((await list('?has_events=yes').expect(200)).body)).toEqual([
        'Pending Only',
        'Past',
        'Upcoming',
      ]);
      expect(names((await list('?has_events=false').expect(200)).body)).toEqual(['Idle']);
      expect(names((await list('?only_with_upcoming=1').expect(200)).body)).toEqual([
        'Pending Only',
        'Upcoming',
      ]);
    });
  });

  describe('for the events module', () => {
    let organizers: OrganizersService;
    beforeAll(() => {
      organizers = t.app.get(OrganizersService);
    });
    // In a write transaction, as the events module calls it (it records what it creates).
    const resolve = (input: unknown, user: UserName = 'author') =>
      t.app
        .get(Writes)
        .run(undefined, (unit) => organizers.resolveForEvent(unit, input, contextFor(user)));

    it('resolves IDs, lists, {id} objects and inline organizers, in order, without duplicates', async () => {
      await create(MOJO).expect(201); // 1
      await create({ organizer: 'Paard', email: 'info@paard.nl' }).expect(201); // 2
      await create({ organizer: 'Gone' }).expect(201); // 3
      await t.http().delete(`${API}/organizers/3`).set('Authorization', t.auth.author).expect(200);

      await expect(resolve(undefined)).resolves.toBeUndefined();
      for (const unlink of [[], '', 0, null]) await expect(resolve(unlink)).resolves.toEqual([]);
      await expect(resolve(2)).resolves.toEqual([2]);
      await expect(resolve('2, 1,2')).resolves.toEqual([2, 1]);
      await expect(resolve([1, '2', { id: 1 }])).resolves.toEqual([1, 2]);
      // Inline: same name (any case) and e-mail reuses; otherwise a new organizer.
      await expect(
        resolve([
          { id: 2 },
          { organizer: 'MOJO CONCERTS', email: 'info@mojo.nl' },
          { organizer: 'New Org' },
          { organizer: 'new org' },
        ]),
      ).resolves.toEqual([2, 1, 4]);
      await expect(resolve({ organizer: 'Paard' })).resolves.toEqual([5]);
      const created = await t.http().get(`${API}/organizers/4`).expect(200);
      expect(created.body).toEqual(
        organizerRecord(4, 'New Org', 'new-org', { json_ld: expect.any(Object) }),
      );

      for (const bad of [99, [1, 99], { id: 3 }, '1,3']) {
        await expect(resolve(bad)).rejects.toMatchObject({
          key: 'rest_invalid_param',
          details: { invalid: { organizer: { reason: 'notFound' } } },
        });
      }
      await expect(resolve([1, 'x'])).rejects.toMatchObject({
        details: { invalid: { organizer: { reason: 'invalid' } } },
      });
      await expect(resolve(Array.from({ length: 101 }, (_, i) => i + 1))).rejects.toMatchObject({
        details: { invalid: { organizer: { reason: 'arrayMaxSize' } } },
      });
    });

    it('validates inline organizers like POST /organizers and needs the right to create', async () => {
      await expect(resolve([{ email: 'x@y.nl' }])).rejects.toMatchObject({
        key: 'rest_missing_callback_param',
        details: { missing: ['organizer.organizer'] },
      });
      await expect(resolve({ organizer: 'X', email: 'nope' })).rejects.toMatchObject({
        key: 'rest_invalid_param',
        details: { invalid: { 'organizer.email': { reason: 'isEmail' } } },
      });
      await expect(resolve({ organizer: 'X' }, 'subscriber')).rejects.toMatchObject({
        key: 'rest_forbidden',
      });
      // The failed attempts left nothing behind.
      expect(names((await list('', 'editor').expect(200)).body)).toEqual([]);
    });

    it('gives organizer records by ID for embedding in events', async () => {
      await create(MOJO).expect(201);
      const records = await organizers.recordsByIds([1, 5], contextFor(undefined, 'en'));
      expect([...records.entries()]).toEqual([
        [
          1,
          {
            ...mojoRecord(),
            rest_url: 'http://api.test/calendar/events/v1/organizers/1',
            ical_url: 'http://api.test/calendar/events/v1/events.ics?organizer=1',
          },
        ],
      ]);
    });
  });
});
