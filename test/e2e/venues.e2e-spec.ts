import { Writes } from '../../src/writes/writes.service';
import { VenuesService } from '../../src/venues/venues.service';
import {
  apiUrl,
  contextFor,
  DAY,
  eventVenueId,
  expectedRecord,
  insertEvent,
  nowSeconds,
  recordKeys,
} from './helpers/content';
import { API, createTestApp, errorBody, TestApp, UserName, USERS } from './helpers/test-app';

/** Paradiso's fields that come back exactly as sent. */
const PARADISO_ECHOED = {
  description: '<p>Poptempel in een oude kerk.</p>',
  excerpt: 'Poptempel',
  address: 'Weteringschans 6-8',
  city: 'Amsterdam',
  country: 'Nederland',
  province: 'Noord-Holland',
  state: 'NH',
  zip: '1017 SG',
  phone: '+31 20 626 4521',
  website: 'https://www.paradiso.nl',
  stateprovince: 'Noord Holland',
  geo_lat: 52.3622,
};

/** A create body using the loose input forms (strings for numbers and booleans). */
const PARADISO = {
  ...PARADISO_ECHOED,
  venue: 'Paradiso',
  geo_lng: '4.8838',
  show_map: 'false',
  show_map_link: 0,
  image: 'https://cdn.example.com/img/paradiso.JPG',
  date: '2025-03-01 20:00:00',
};

/** A venue record: the shared fields plus the venue's defaults. */
function venueRecord(id: number, name: string, slug: string, fields: Record<string, unknown> = {}) {
  return expectedRecord('venue', id, name, slug, {
    geo_lat: null,
    geo_lng: null,
    show_map: true,
    show_map_link: true,
    ...fields,
  });
}

/** Paradiso as created from PARADISO (ID 1 unless told). */
function paradisoRecord(id = 1, fields: Record<string, unknown> = {}) {
  return venueRecord(id, 'Paradiso', 'paradiso', {
    ...PARADISO_ECHOED,
    image: { id: null, url: 'https://cdn.example.com/img/paradiso.JPG', extension: 'jpg' },
    geo_lng: 4.8838,
    show_map: false,
    show_map_link: false,
    date: '2025-03-01 20:00:00',
    date_utc: '2025-03-01 20:00:00',
    ...fields,
  });
}

describe('venues', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  const create = (body: object, user: UserName = 'author', query = '') =>
    t.http().post(`${API}/venues${query}`).set('Authorization', t.auth[user]).send(body);
  const list = (query: string, user?: UserName) => {
    const req = t.http().get(`${API}/venues${query}`);
    return user ? req.set('Authorization', t.auth[user]) : req;
  };
  const names = (body: { venues: Array<{ venue: string }> }) => body.venues.map((v) => v.venue);

  describe('create and read', () => {
    it('creates a venue: 201, Location, the whole record in the documented order', async () => {
      const res = await create(PARADISO).expect(201);
      expect(res.body).toEqual(paradisoRecord());
      expect(res.headers.location).toEqual(res.body.rest_url);
      expect(Object.keys(res.body)).toEqual(
        recordKeys('venue', [
          ...['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website'],
          ...['stateprovince', 'geo_lat', 'geo_lng', 'show_map', 'show_map_link'],
        ]),
      );
    });

    it('leaves empty optional strings out and defaults flags, coordinates and dates', async () => {
      const before = nowSeconds();
      const res = await create({ venue: 'De Kleine Komedie', address: '', image: '' }).expect(201);
      expect(res.body).toEqual(venueRecord(1, 'De Kleine Komedie', 'de-kleine-komedie'));
      const published = Date.parse(`${res.body.date_utc}Z`) / 1000;
      expect(published).toBeGreaterThanOrEqual(before - 1);
      expect(published).toBeLessThanOrEqual(nowSeconds() + 1);
    });

    it('reads a venue by ID and by slug with JSON-LD (single reads only)', async () => {
      await create(PARADISO).expect(201);
      const jsonLd = {
        '@context': 'http://schema.org',
        '@type': 'Place',
        name: 'Paradiso',
        description: 'Poptempel',
        image: 'https://cdn.example.com/img/paradiso.JPG',
        url: 'http://calendar.test/nl/venue/paradiso/',
        address: {
          '@type': 'PostalAddress',
          streetAddress: 'Weteringschans 6-8',
          addressLocality: 'Amsterdam',
          addressRegion: 'Noord Holland',
          postalCode: '1017 SG',
          addressCountry: 'Nederland',
        },
        geo: { '@type': 'GeoCoordinates', latitude: 52.3622, longitude: 4.8838 },
        telephone: '+31 20 626 4521',
        sameAs: 'https://www.paradiso.nl',
      };
      const byId = await t.http().get(`${API}/venues/1`).expect(200);
      expect(byId.body).toEqual(paradisoRecord(1, { json_ld: jsonLd }));
      const bySlug = await t.http().get(`${API}/venues/by-slug/paradiso`).expect(200);
      expect(bySlug.body).toEqual(paradisoRecord(1, { json_ld: jsonLd }));
      const listed = await list('').expect(200);
      expect(listed.body.venues).toEqual([paradisoRecord()]);
    });

    it('answers 404 for unknown IDs and slugs, and no route for a non-numeric ID', async () => {
      await create(PARADISO).expect(201);
      for (const path of [
        '/venues/2',
        '/venues/0',
        '/venues/99999999999',
        '/venues/by-slug/nope',
      ]) {
        const res = await t.http().get(`${API}${path}`).expect(404);
        expect(res.body).toEqual(errorBody('rest-venue-not-found', 404));
      }
      const res = await t.http().get(`${API}/venues/abc`).expect(404);
      expect(res.body).toEqual(errorBody('rest_no_route', 404));
    });

    it('reads the publication date in the site zone (date) or UTC (date_utc, which wins)', async () => {
      const res = await create({
        venue: 'Melkweg',
        date: '2024-06-01T12:00:00+02:00',
        date_utc: '2024-05-01 08:30:00',
      }).expect(201);
      expect(res.body).toEqual(
        venueRecord(1, 'Melkweg', 'melkweg', {
          date: '2024-05-01 08:30:00',
          date_utc: '2024-05-01 08:30:00',
        }),
      );
      const unix = await create({ venue: 'Bimhuis', date: 1700000000 }).expect(201);
      expect(unix.body.date_utc).toBe('2023-11-14 22:13:20');
    });

    it('accepts form-encoded bodies', async () => {
      const res = await t
        .http()
        .post(`${API}/venues`)
        .set('Authorization', t.auth.author)
        .type('form')
        .send('venue=Tivoli&geo_lat=52.09&geo_lng=5.11&show_map=no&image=42')
        .expect(201);
      expect(res.body).toEqual(
        venueRecord(1, 'Tivoli', 'tivoli', {
          geo_lat: 52.09,
          geo_lng: 5.11,
          show_map: false,
          image: { id: 42, url: null, extension: null },
        }),
      );
    });
  });

  describe('update', () => {
    it('updates partially with POST, PUT and PATCH, by ID and by slug', async () => {
      await create(PARADISO).expect(201);
      const post = await t
        .http()
        .post(`${API}/venues/1`)
        .set('Authorization', t.auth.author)
        .send({ city: 'Amsterdam-Centrum', geo_lat: null })
        .expect(200);
      expect(post.body).toEqual(paradisoRecord(1, { city: 'Amsterdam-Centrum', geo_lat: null }));

      const put = await t
        .http()
        .put(`${API}/venues/1`)
        .set('Authorization', t.auth.author)
        .send({ show_map: true, phone: '', website: '' })
        .expect(200);
      const {
        phone: _p,
        website: _w,
        ...withoutContact
      } = paradisoRecord(1, {
        city: 'Amsterdam-Centrum',
        geo_lat: null,
        show_map: true,
      });
      expect(put.body).toEqual(withoutContact);

      const patch = await t
        .http()
        .patch(`${API}/venues/1`)
        .set('Authorization', t.auth.author)
        .send({ venue: 'Paradiso Amsterdam', image: 0 })
        .expect(200);
      // The name changes; the slug stays unless one is sent.
      expect(patch.body).toEqual({ ...withoutContact, venue: 'Paradiso Amsterdam', image: false });

      const renamed: Record<string, unknown> = {
        ...withoutContact,
        venue: 'Paradiso Amsterdam',
        image: false,
        slug: 'paradiso-weteringschans',
        url: 'http://calendar.test/nl/venue/paradiso-weteringschans/',
      };
      const bySlugPost = await t
        .http()
        .post(`${API}/venues/by-slug/paradiso`)
        .set('Authorization', t.auth.author)
        .send({ slug: 'Paradiso Weteringschans' })
        .expect(200);
      expect(bySlugPost.body).toEqual(renamed);

      const bySlugPut = await t
        .http()
        .put(`${API}/venues/by-slug/paradiso-weteringschans`)
        .set('Authorization', t.auth.author)
        .send({ zip: '1017SG' })
        .expect(200);
      expect(bySlugPut.body).toEqual({ ...renamed, zip: '1017SG' });

      const bySlugPatch = await t
        .http()
        .patch(`${API}/venues/by-slug/paradiso-weteringschans`)
        .set('Authorization', t.auth.author)
        .send({ excerpt: '' })
        .expect(200);
      const { excerpt: _e, ...withoutExcerpt } = renamed;
      expect(bySlugPatch.body).toEqual({ ...withoutExcerpt, zip: '1017SG' });

      const missing = await t
        .http()
        .patch(`${API}/venues/by-slug/paradiso`)
        .set('Authorization', t.auth.author)
        .send({ city: 'x' })
        .expect(404);
      expect(missing.body).toEqual(errorBody('rest-venue-not-found', 404));
    });

    it('gives a taken slug the next free suffix, and keeps its own slug on update', async () => {
      await create({ venue: 'Paradiso' }).expect(201);
      const second = await create({ venue: 'Paradiso' }).expect(201);
      expect(second.body.slug).toBe('paradiso-2');
      const third = await create({ venue: 'Other', slug: 'paradiso' }).expect(201);
      expect(third.body.slug).toBe('paradiso-3');
      const same = await t
        .http()
        .patch(`${API}/venues/2`)
        .set('Authorization', t.auth.author)
        .send({ slug: 'paradiso-2' })
        .expect(200);
      expect(same.body.slug).toBe('paradiso-2');
      const emoji = await create({ venue: '🎸🎸' }).expect(201);
      expect(emoji.body.slug).toBe('venue');
    });

    it('gives 20 concurrent creates with the same name 20 distinct slugs', async () => {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => create({ venue: 'Concurrent Hall' })),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
      const slugs = new Set(responses.map((r) => r.body.slug as string));
      expect(slugs.size).toBe(20);
      expect([...slugs].sort()).toEqual(
        [
          'concurrent-hall',
          ...Array.from({ length: 19 }, (_, i) => `concurrent-hall-${i + 2}`),
        ].sort(),
      );
    });
  });

  describe('languages', () => {
    it('falls back to the other language, by ID and by slug, and adds a translation on update', async () => {
      await create(
        { venue: 'Het Concertgebouw', excerpt: 'Zaal' },
        'author',
        '?language=nl',
      ).expect(201);
      const dutch = venueRecord(1, 'Het Concertgebouw', 'het-concertgebouw', { excerpt: 'Zaal' });

      const fallback = await t
        .http()
        .get(`${API}/venues/by-slug/het-concertgebouw?language=en`)
        .expect(200);
      expect(fallback.body).toEqual({ ...dutch, json_ld: expect.any(Object) });

      const missingName = await t
        .http()
        .patch(`${API}/venues/1?language=en`)
        .set('Authorization', t.auth.author)
        .send({ excerpt: 'Hall' })
        .expect(400);
      expect(missingName.body).toEqual(errorBody('rest_missing_callback_param', 400, ['venue']));

      // Shared fields alone add no translation.
      const shared = await t
        .http()
        .patch(`${API}/venues/1?language=en`)
        .set('Authorization', t.auth.author)
        .send({ city: 'Amsterdam' })
        .expect(200);
      expect(shared.body).toEqual({ ...dutch, city: 'Amsterdam' });

      const english = await t
        .http()
        .patch(`${API}/venues/1`)
        .set('Authorization', t.auth.author)
        .send({ language: 'en', venue: 'The Concertgebouw', description: 'A concert hall.' })
        .expect(200);
      const englishRecord = venueRecord(1, 'The Concertgebouw', 'the-concertgebouw', {
        description: 'A concert hall.',
        city: 'Amsterdam',
        language: 'en',
        languages: ['nl', 'en'],
      });
      expect(english.body).toEqual(englishRecord);

      const enBySlug = await t
        .http()
        .get(`${API}/venues/by-slug/the-concertgebouw?language=en`)
        .expect(200);
      expect(enBySlug.body).toEqual({ ...englishRecord, json_ld: expect.any(Object) });
      // A slug of the other language is found too; the record shows the requested language.
      const crossSlug = await t
        .http()
        .get(`${API}/venues/by-slug/the-concertgebouw?language=nl`)
        .expect(200);
      expect(crossSlug.body).toEqual({
        ...dutch,
        city: 'Amsterdam',
        languages: ['nl', 'en'],
        json_ld: expect.any(Object),
      });
      const acceptLanguage = await t
        .http()
        .get(`${API}/venues/1`)
        .set('Accept-Language', 'en-GB;q=0.8')
        .expect(200);
      expect(acceptLanguage.body.venue).toBe('The Concertgebouw');

      const edit = await t
        .http()
        .get(`${API}/venues/1?context=edit`)
        .set('Authorization', t.auth.author)
        .expect(200);
      expect(edit.body.translations).toEqual({
        nl: {
          venue: 'Het Concertgebouw',
          description: '',
          excerpt: 'Zaal',
          slug: 'het-concertgebouw',
        },
        en: {
          venue: 'The Concertgebouw',
          description: 'A concert hall.',
          excerpt: '',
          slug: 'the-concertgebouw',
        },
      });
    });

    it('rejects an unsupported language', async () => {
      const res = await t.http().get(`${API}/venues?language=de`).expect(400);
      expect(res.body).toEqual(
        errorBody('rest_invalid_param', 400, { language: expect.any(String) }),
      );
    });
  });

  describe('validation', () => {
    const invalid = async (body: object, params: unknown, path = '/venues') => {
      const res = await t
        .http()
        .post(`${API}${path}?language=en`)
        .set('Authorization', t.auth.author)
        .send(body)
        .expect(400);
      expect(res.body).toEqual(errorBody('rest_invalid_param', 400, params));
    };

    it('requires the name', async () => {
      const res = await create({ city: 'Utrecht' }).expect(400);
      expect(res.body).toEqual(errorBody('rest_missing_callback_param', 400, ['venue']));
      await invalid({ venue: '' }, { venue: 'venue must not be empty.' });
      await invalid({ venue: '   ' }, { venue: 'venue must not be empty.' });
      await invalid({ venue: 'x'.repeat(201) }, { venue: 'venue is too long.' });
    });

    it('checks every field', async () => {
      const cases: Array<[string, unknown, string]> = [
        ['website', 'not a url', 'is not a valid URL.'],
        ['website', 'ftp://example.com', 'is not a valid URL.'],
        ['geo_lat', 90.5, 'is out of range.'],
        ['geo_lng', -180.01, 'is out of range.'],
        ['geo_lat', 'north', 'is not of type number.'],
        ['status', 'archived', 'is not one of the allowed values.'],
        ['status', 'trash', 'is not one of the allowed values.'],
        ['date', 'next friday', 'is not a valid date.'],
        ['date_utc', '2024-13-01', 'is not a valid date.'],
        ['image', 'ftp://x.test/a.png', 'must be an http(s) URL or a positive media ID.'],
        ['show_map', 'maybe', 'is not of type boolean.'],
        ['address', 'x'.repeat(256), 'is too long.'],
        ['excerpt', 'x'.repeat(1001), 'is too long.'],
        ['author', 0, 'is out of range.'],
        ['city', 12, 'is not of type string.'],
      ];
      for (const [name, value, reason] of cases)
        await invalid({ venue: 'V', [name]: value }, { [name]: `${name} ${reason}` });
      // On update, a null name counts as not sent at all.
      await create({ venue: 'V' }).expect(201);
      const nullName = await t
        .http()
        .patch(`${API}/venues/1`)
        .set('Authorization', t.auth.author)
        .send({ venue: null })
        .expect(400);
      expect(nullName.body).toEqual(errorBody('rest_missing_callback_param', 400, ['venue']));
    });

    it('checks list parameters', async () => {
      const bad = async (query: string, params: unknown) => {
        const res = await list(`${query}&language=en`).expect(400);
        expect(res.body).toEqual(errorBody('rest_invalid_param', 400, params));
      };
      await bad('?page=0', { page: 'page is out of range.' });
      await bad('?per_page=0', { per_page: 'per_page is out of range.' });
      await bad('?status=draft', { status: 'status: you may only ask for published items.' });
      await bad('?event=abc', { event: 'event is not of type integer.' });
      await bad('?has_events=perhaps', { has_events: 'has_events is not of type boolean.' });
      await bad(`?search=${'x'.repeat(201)}`, { search: 'search is too long.' });
      await bad('?context=admin', { context: 'context is not one of the allowed values.' });
    });
  });

  describe('roles and visibility', () => {
    it('needs a token to write and the right role to create', async () => {
      const anonymous = await t.http().post(`${API}/venues`).send({ venue: 'X' }).expect(401);
      expect(anonymous.body).toEqual(errorBody('rest_forbidden', 401));
      const subscriber = await create({ venue: 'X' }, 'subscriber').expect(403);
      expect(subscriber.body).toEqual(errorBody('rest_forbidden', 403));
    });

    it('scales a contributor back to draft or pending', async () => {
      const draft = await create({ venue: 'Draft Hall' }, 'contributor').expect(201);
      expect(draft.body).toEqual(
        venueRecord(1, 'Draft Hall', 'draft-hall', { author: '4', status: 'draft' }),
      );
      const pending = await create(
        { venue: 'Pending Hall', status: 'publish' },
        'contributor',
      ).expect(201);
      expect(pending.body.status).toBe('pending');
      const update = await t
        .http()
        .patch(`${API}/venues/1`)
        .set('Authorization', t.auth.contributor)
        .send({ status: 'future' })
        .expect(200);
      expect(update.body.status).toBe('pending');
    });

    it('lets only editors and administrators set another author', async () => {
      const res = await create({ venue: 'X', author: USERS.otherAuthor.id }, 'author').expect(403);
      expect(res.body).toEqual(errorBody('rest_forbidden', 403));
      await create({ venue: 'Mine', author: USERS.author.id }, 'author').expect(201);
      const editor = await create({ venue: 'Y', author: USERS.contributor.id }, 'editor').expect(
        201,
      );
      expect(editor.body.author).toBe('4');
      const reassign = await t
        .http()
        .patch(`${API}/venues/1`)
        .set('Authorization', t.auth.author)
        .send({ author: USERS.editor.id })
        .expect(403);
      expect(reassign.body).toEqual(errorBody('rest_forbidden', 403));
    });

    it('applies the role table to updates and deletes', async () => {
      await create({ venue: 'Editor Hall' }, 'editor').expect(201); // 1
      await create({ venue: 'Author Hall' }, 'author').expect(201); // 2
      await create({ venue: 'Given Hall', author: USERS.contributor.id }, 'editor').expect(201); // 3, published
      await create({ venue: 'Own Draft' }, 'contributor').expect(201); // 4, draft
      const patch = (id: number, user: UserName) =>
        t
          .http()
          .patch(`${API}/venues/${id}`)
          .set('Authorization', t.auth[user])
          .send({ city: 'Delft' });

      for (const [id, user] of [
        [1, 'contributor'],
        [1, 'author'],
        [2, 'otherAuthor'],
        [3, 'contributor'],
        [4, 'otherContributor'],
        [2, 'subscriber'],
      ] as Array<[number, UserName]>) {
        const res = await patch(id, user).expect(403);
        expect(res.body).toEqual(errorBody('rest_forbidden', 403));
        await t.http().delete(`${API}/venues/${id}`).set('Authorization', t.auth[user]).expect(403);
      }
      await patch(2, 'author').expect(200);
      await patch(2, 'editor').expect(200);
      await patch(4, 'contributor').expect(200);
      await patch(1, 'administrator').expect(200);
      const anonymous = await t.http().patch(`${API}/venues/1`).send({ city: 'Delft' }).expect(401);
      expect(anonymous.body).toEqual(errorBody('rest_forbidden', 401));
    });

    it('shows drafts to their owner and editors only', async () => {
      await create({ venue: 'Published' }, 'author').expect(201); // 1
      await create({ venue: 'Hidden', status: 'draft' }, 'author').expect(201); // 2
      await create({ venue: 'Private', status: 'private' }, 'otherAuthor').expect(201); // 3

      for (const user of [undefined, 'subscriber', 'otherAuthor', 'contributor'] as const) {
        const req = t.http().get(`${API}/venues/2`);
        const res = await (user ? req.set('Authorization', t.auth[user]) : req).expect(403);
        expect(res.body).toEqual(errorBody('venue-not-accessible', 403));
      }
      const slug = await t.http().get(`${API}/venues/by-slug/hidden`).expect(403);
      expect(slug.body).toEqual(errorBody('venue-not-accessible', 403));
      const owner = await t
        .http()
        .get(`${API}/venues/2`)
        .set('Authorization', t.auth.author)
        .expect(200);
      expect(owner.body).toEqual(
        venueRecord(2, 'Hidden', 'hidden', { status: 'draft', json_ld: expect.any(Object) }),
      );
      await t.http().get(`${API}/venues/2`).set('Authorization', t.auth.editor).expect(200);

      expect(names((await list('').expect(200)).body)).toEqual(['Published']);
      expect(names((await list('', 'subscriber').expect(200)).body)).toEqual(['Published']);
      expect(names((await list('', 'author').expect(200)).body)).toEqual(['Hidden', 'Published']);
      expect(names((await list('', 'otherAuthor').expect(200)).body)).toEqual([
        'Private',
        'Published',
      ]);
      expect(names((await list('', 'editor').expect(200)).body)).toEqual([
        'Private',
        'Hidden',
        'Published',
      ]);
      expect(names((await list('?status=draft,private', 'editor').expect(200)).body)).toEqual([
        'Private',
        'Hidden',
      ]);
      expect(names((await list('?status[]=draft', 'otherAuthor').expect(200)).body)).toEqual([]);
      expect(names((await list('?status=publish').expect(200)).body)).toEqual(['Published']);
    });

    it('adds translations with context=edit for callers who may edit', async () => {
      await create({ venue: 'Mine' }, 'author').expect(201);
      const anonymous = await t.http().get(`${API}/venues/1?context=edit`).expect(401);
      expect(anonymous.body).toEqual(errorBody('rest_forbidden', 401));
      const other = await t
        .http()
        .get(`${API}/venues/1?context=edit`)
        .set('Authorization', t.auth.otherAuthor)
        .expect(403);
      expect(other.body).toEqual(errorBody('rest_forbidden', 403));
      await t.http().get(`${API}/venues?context=edit`).expect(401);
      const translations = { nl: { venue: 'Mine', description: '', excerpt: '', slug: 'mine' } };
      const listed = await list('?context=edit', 'author').expect(200);
      expect(listed.body.venues).toEqual([venueRecord(1, 'Mine', 'mine', { translations })]);
      const notEditable = await list('?context=edit', 'otherAuthor').expect(200);
      expect(notEditable.body.venues).toEqual([venueRecord(1, 'Mine', 'mine')]);
    });
  });

  describe('delete', () => {
    it('trashes, answers 410 the second time, and restores on a status update', async () => {
      await create(PARADISO).expect(201);
      const trashed = await t
        .http()
        .delete(`${API}/venues/1`)
        .set('Authorization', t.auth.author)
        .expect(200);
      expect(trashed.body).toEqual(paradisoRecord(1, { status: 'trash' }));
      const again = await t
        .http()
        .delete(`${API}/venues/1`)
        .set('Authorization', t.auth.author)
        .expect(410);
      expect(again.body).toEqual(errorBody('venue-is-in-trash', 410));

      const anonymous = await t.http().get(`${API}/venues/1`).expect(403);
      expect(anonymous.body).toEqual(errorBody('venue-not-accessible', 403));
      await t.http().get(`${API}/venues/1`).set('Authorization', t.auth.author).expect(200);
      expect(names((await list('', 'editor').expect(200)).body)).toEqual([]);
      expect(names((await list('?status=trash', 'editor').expect(200)).body)).toEqual(['Paradiso']);

      const restored = await t
        .http()
        .put(`${API}/venues/1`)
        .set('Authorization', t.auth.author)
        .send({ status: 'publish' })
        .expect(200);
      expect(restored.body).toEqual(paradisoRecord(1));
      await t.http().get(`${API}/venues/1`).expect(200);
    });

    it('deletes for good with force=true (editors only), answering the record as it was', async () => {
      await create(PARADISO).expect(201);
      const byAuthor = await t
        .http()
        .delete(`${API}/venues/1?force=true`)
        .set('Authorization', t.auth.author)
        .expect(403);
      expect(byAuthor.body).toEqual(errorBody('rest_forbidden', 403));
      const res = await t
        .http()
        .delete(`${API}/venues/by-slug/paradiso?force=true`)
        .set('Authorization', t.auth.editor)
        .expect(200);
      expect(res.body).toEqual(paradisoRecord());
      const gone = await t
        .http()
        .get(`${API}/venues/1`)
        .set('Authorization', t.auth.editor)
        .expect(404);
      expect(gone.body).toEqual(errorBody('rest-venue-not-found', 404));
      // Its slug is free again.
      expect((await create({ venue: 'Paradiso' }).expect(201)).body.slug).toBe('paradiso');
    });

    it('unlinks the venue from its events, on trash and on force', async () => {
      await create({ venue: 'A' }).expect(201);
      await create({ venue: 'B' }).expect(201);
      const first = await insertEvent(t, { venueId: 1 });
      const second = await insertEvent(t, { venueId: 2 });
      await t
        .http()
        .delete(`${API}/venues/by-slug/a`)
        .set('Authorization', t.auth.author)
        .expect(200);
      expect(await eventVenueId(t, first)).toBeNull();
      expect(await eventVenueId(t, second)).toBe(2);
      await t
        .http()
        .delete(`${API}/venues/2?force=1`)
        .set('Authorization', t.auth.administrator)
        .expect(200);
      expect(await eventVenueId(t, second)).toBeNull();
    });

    it('answers 403 to a delete without the right and 404 for an unknown venue', async () => {
      await create({ venue: 'A' }, 'editor').expect(201);
      await t.http().delete(`${API}/venues/1`).set('Authorization', t.auth.author).expect(403);
      const res = await t
        .http()
        .delete(`${API}/venues/7`)
        .set('Authorization', t.auth.editor)
        .expect(404);
      expect(res.body).toEqual(errorBody('rest-venue-not-found', 404));
    });
  });

  describe('list', () => {
    it('orders by publication date, newest first, then ID; paginates with links and headers', async () => {
      await create({ venue: 'Old', date: '2020-01-01' }).expect(201); // 1
      await create({ venue: 'New', date: '2024-01-01' }).expect(201); // 2
      await create({ venue: 'Same A', date: '2022-01-01' }).expect(201); // 3
      await create({ venue: 'Same B', date: '2022-01-01' }).expect(201); // 4
      await create({ venue: 'Middle', date: '2021-01-01' }).expect(201); // 5

      const first = await list('?per_page=2').expect(200);
      expect(first.body).toEqual({
        venues: [
          venueRecord(2, 'New', 'new', {
            date: '2024-01-01 00:00:00',
            date_utc: '2024-01-01 00:00:00',
          }),
          venueRecord(4, 'Same B', 'same-b', {
            date: '2022-01-01 00:00:00',
            date_utc: '2022-01-01 00:00:00',
          }),
        ],
        rest_url: apiUrl('/venues?per_page=2&page=1'),
        next_rest_url: apiUrl('/venues?per_page=2&page=2'),
        total: 5,
        total_pages: 3,
      });
      expect(first.headers['x-total']).toBe('5');
      expect(first.headers['x-totalpages']).toBe('3');
      expect(first.headers.link).toMatch(
        /^<http:\/\/127\.0\.0\.1:\d+\/calendar\/events\/v1\/venues\?per_page=2&page=2>; rel="next"$/,
      );

      const second = await list('?per_page=2&page=2').expect(200);
      expect(names(second.body)).toEqual(['Same A', 'Middle']);
      expect(second.body).toEqual(
        expect.objectContaining({
          rest_url: apiUrl('/venues?per_page=2&page=2'),
          next_rest_url: apiUrl('/venues?per_page=2&page=3'),
          previous_rest_url: apiUrl('/venues?per_page=2'),
        }),
      );
      expect(second.headers.link).toMatch(/rel="next", <.*\/venues\?per_page=2>; rel="prev"$/);

      const last = await list('?per_page=2&page=3').expect(200);
      expect(names(last.body)).toEqual(['Old']);
      expect(last.body.next_rest_url).toBeUndefined();

      const past = await list('?per_page=2&page=4').expect(404);
      expect(past.body).toEqual(errorBody('venue-archive-page-not-found', 404));
      const capped = await list('?per_page=500').expect(200);
      expect(capped.body.total_pages).toBe(1);
    });

    it('answers an empty first page when nothing matches', async () => {
      const res = await list('').expect(200);
      expect(res.body).toEqual({
        venues: [],
        rest_url: apiUrl('/venues?page=1'),
        total: 0,
        total_pages: 0,
      });
      expect(res.headers['x-total']).toBe('0');
    });

    it('searches every word at the start of a word of one field, case-insensitively', async () => {
      await create(PARADISO).expect(201);
      await create({
        venue: 'TivoliVredenburg',
        address: 'Vredenburgkade 11',
        city: 'Utrecht',
        stateprovince: 'Utrecht',
        zip: '3511 WC',
        phone: '+31 30 231 4544',
        description: 'Muziekpaleis met vijf zalen',
      }).expect(201);
      await create({ venue: '100% Zaal_1', excerpt: 'Amsterdam Noord' }).expect(201);
      const search = async (words: string) =>
        names((await list(`?search=${encodeURIComponent(words)}`).expect(200)).body);

      expect(await search('weteringschans')).toEqual(['Paradiso']);
      expect(await search('weteringsch')).toEqual(['Paradiso']);
      expect(await search('noord HOLLAND')).toEqual(['Paradiso']);
      expect(await search('626 4521')).toEqual(['Paradiso']);
      expect(await search('3511')).toEqual(['TivoliVredenburg']);
      expect(await search('vijf muziekpaleis')).toEqual(['TivoliVredenburg']);
      expect(await search('amsterdam')).toEqual(['100% Zaal_1', 'Paradiso']);
      expect(await search('amsterdam noord')).toEqual(['100% Zaal_1']);
      expect(await search('poptempel')).toEqual(['Paradiso']);
      // Inside a word is no match: "burg" is not the start of "Vredenburgkade".
      expect(await search('burgkade')).toEqual([]);
      expect(await search('vredenburg')).toEqual(['TivoliVredenburg']);
      // Words spread over two fields do not match.
      expect(await search('paradiso amsterdam')).toEqual([]);
      // Operators and wildcards are plain characters; `_` is part of a word.
      expect(await search('100%')).toEqual(['100% Zaal_1']);
      expect(await search('zaal_1')).toEqual(['100% Zaal_1']);
      expect(await search('-paradiso')).toEqual(['Paradiso']);
      // Words under 3 characters and stop words are left out: nothing is filtered.
      expect(await search('+31 20')).toEqual(['100% Zaal_1', 'TivoliVredenburg', 'Paradiso']);
      expect(await search('%')).toEqual(['100% Zaal_1', 'TivoliVredenburg', 'Paradiso']);
      expect(await search('  ')).toEqual(['100% Zaal_1', 'TivoliVredenburg', 'Paradiso']);
    });

    it('searches the texts a record shows: the requested language, else the fallback', async () => {
      await create({ venue: 'Stadsschouwburg' }, 'author', '?language=nl').expect(201);
      await t
        .http()
        .patch(`${API}/venues/1?language=en`)
        .set('Authorization', t.auth.author)
        .send({ venue: 'City Theatre' })
        .expect(200);
      await create({ venue: 'Schouwburg Only Dutch' }, 'author', '?language=nl').expect(201);
      const search = async (words: string, language: string) =>
        names(
          (await list(`?search=${encodeURIComponent(words)}&language=${language}`).expect(200))
            .body,
        );
      expect(await search('theatre', 'en')).toEqual(['City Theatre']);
      expect(await search('schouwburg', 'en')).toEqual(['Schouwburg Only Dutch']);
      expect(await search('schouwburg', 'nl')).toEqual(['Schouwburg Only Dutch']);
      expect(await search('stadsschouwburg', 'nl')).toEqual(['Stadsschouwburg']);
      expect(await search('stadsschouwburg', 'en')).toEqual([]);
      expect(await search('theatre', 'nl')).toEqual([]);
    });

    it('filters by event, has_events and only_with_upcoming', async () => {
      await create({ venue: 'Live' }).expect(201); // 1: a published upcoming event
      await create({ venue: 'Past' }).expect(201); // 2: a published past event
      await create({ venue: 'Draft Only' }).expect(201); // 3: only a draft upcoming event (editor's)
      await create({ venue: 'Nothing' }).expect(201); // 4: no events
      await create({ venue: 'Own Draft Event' }).expect(201); // 5: the author's own draft upcoming event
      const live = await insertEvent(t, { venueId: 1 });
      await insertEvent(t, { venueId: 2, startAt: nowSeconds() - 30 * DAY });
      const draft = await insertEvent(t, { venueId: 3, status: 'draft' });
      await insertEvent(t, { venueId: 5, status: 'draft', authorId: USERS.author.id });

      expect(names((await list(`?event=${live}`).expect(200)).body)).toEqual(['Live']);
      expect(names((await list(`?event=${draft}`, 'editor').expect(200)).body)).toEqual([
        'Draft Only',
      ]);
      for (const [query, user] of [
        [`?event=${draft}`, undefined],
        ['?event=999', 'editor'],
      ] as Array<[string, UserName | undefined]>) {
        const res = await list(`${query}&language=en`, user).expect(400);
        expect(res.body).toEqual(
          errorBody('rest_invalid_param', 400, {
            event: 'event refers to a record that does not exist.',
          }),
        );
      }

      expect(names((await list('?has_events=true').expect(200)).body)).toEqual(['Past', 'Live']);
      expect(names((await list('?has_events=0').expect(200)).body)).toEqual([
        'Own Draft Event',
        'Nothing',
        'Draft Only',
      ]);
      expect(names((await list('?only_with_upcoming=true').expect(200)).body)).toEqual(['Live']);
      expect(names((await list('?only_with_upcoming=true', 'author').expect(200)).body)).toEqual([
        'Own Draft Event',
        'Live',
      ]);
      expect(names((await list('?only_with_upcoming=true', 'editor').expect(200)).body)).toEqual([
        'Own Draft Event',
        'Draft Only',
        'Live',
      ]);
      expect(names((await list('?only_with_upcoming=false').expect(200)).body)).toHaveLength(5);
      expect(
        names(
          (await list('?has_events=true&only_with_upcoming=true&search=live').expect(200)).body,
        ),
      ).toEqual(['Live']);
    });
  });

  describe('for the events module', () => {
    let venues: VenuesService;
    beforeAll(() => {
      venues = t.app.get(VenuesService);
    });
    // In a write transaction, as the events module calls it (it records what it creates).
    const resolve = (input: unknown, user: UserName = 'author') =>
      t.app
        .get(Writes)
        .run(undefined, (unit) => venues.resolveForEvent(unit, input, contextFor(user)));

    it('resolves IDs, unlink values and inline venues (reused or created)', async () => {
      await create(PARADISO).expect(201); // 1
      await create({ venue: 'Gone' }).expect(201); // 2
      await t.http().delete(`${API}/venues/2`).set('Authorization', t.auth.author).expect(200);

      await expect(resolve(undefined)).resolves.toBeUndefined();
      for (const unlink of [0, '', [], null, '0'])
        await expect(resolve(unlink)).resolves.toBeNull();
      await expect(resolve(1)).resolves.toBe(1);
      await expect(resolve('1')).resolves.toBe(1);
      await expect(resolve({ id: 1 })).resolves.toBe(1);
      for (const unknown of [2, 3, { id: 99 }]) {
        await expect(resolve(unknown)).rejects.toMatchObject({
          key: 'rest_invalid_param',
          details: { invalid: { venue: { reason: 'notFound' } } },
        });
      }
      await expect(resolve('abc')).rejects.toMatchObject({
        details: { invalid: { venue: { reason: 'invalid' } } },
      });

      // Same name (any case), address and city: reused.
      await expect(
        resolve({ venue: 'PARADISO', address: 'weteringschans 6-8', city: 'Amsterdam' }),
      ).resolves.toBe(1);
      // A trashed match is not reused; a different city makes a new venue.
      await expect(resolve({ venue: 'Gone' })).resolves.toBe(3);
      await expect(
        resolve({
          venue: 'Paradiso',
          address: 'Weteringschans 6-8',
          city: 'Utrecht',
          geo_lat: '52',
        }),
      ).resolves.toBe(4);
      const created = await t.http().get(`${API}/venues/4`).expect(200);
      expect(created.body).toEqual(
        venueRecord(4, 'Paradiso', 'paradiso-2', {
          address: 'Weteringschans 6-8',
          city: 'Utrecht',
          geo_lat: 52,
          json_ld: expect.any(Object),
        }),
      );
    });

    it('validates inline venues like POST /venues, naming errors venue.<field>', async () => {
      await expect(resolve({ city: 'Delft' })).rejects.toMatchObject({
        key: 'rest_missing_callback_param',
        details: { missing: ['venue.venue'] },
      });
      await expect(resolve({ venue: 'X', website: 'nope', geo_lat: 100 })).rejects.toMatchObject({
        key: 'rest_invalid_param',
        details: {
          invalid: { 'venue.website': { reason: 'isUrl' }, 'venue.geo_lat': { reason: 'max' } },
        },
      });
      await expect(resolve({ venue: 'X' }, 'subscriber')).rejects.toMatchObject({
        key: 'rest_forbidden',
      });
      await expect(resolve({ venue: 'X' }, 'contributor')).resolves.toBe(1);
    });

    it('gives venue records by ID in the requested language, without JSON-LD', async () => {
      await create(PARADISO).expect(201);
      await create({ venue: 'Engels' }, 'author', '?language=en').expect(201);
      const records = await venues.recordsByIds([2, 1, 2, 77], contextFor(undefined, 'nl'));
      expect([...records.keys()].sort()).toEqual([1, 2]);
      expect(records.get(1)).toEqual({
        ...paradisoRecord(),
        rest_url: 'http://api.test/calendar/events/v1/venues/1',
        ical_url: 'http://api.test/calendar/events/v1/events.ics?venue=1',
      });
      expect(records.get(2)).toEqual({
        ...venueRecord(2, 'Engels', 'engels', { language: 'en' }),
        rest_url: 'http://api.test/calendar/events/v1/venues/2',
        ical_url: 'http://api.test/calendar/events/v1/events.ics?venue=2',
      });
      await expect(venues.recordsByIds([], contextFor(undefined))).resolves.toEqual(new Map());
    });
  });
});
