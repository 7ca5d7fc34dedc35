import type { Response } from 'supertest';
import { createHash } from 'node:crypto';
import { dayAt } from './helpers/events';
import { API, createTestApp, errorBody, TestApp, UserName } from './helpers/test-app';

/*
 * Conditional requests and optimistic concurrency (docs/api.md §11): strong
 * ETags and 304 on every read, If-Match on every single-record write, the
 * write's ETag for chaining, REQUIRE_IF_MATCH.
 */

const TAG = /^"[A-Za-z0-9_-]{27}"$/;

type Body = Record<string, unknown> & { id: number };

function useApp(env: Record<string, string>) {
  const ctx = {} as { t: TestApp };
  beforeAll(async () => {
    ctx.t = await createTestApp(env);
    // One port for every request: records carry absolute URLs, so the Host must not change.
    await ctx.t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => ctx.t?.close());
  beforeEach(() => ctx.t.reset());
  return ctx;
}

function requests(ctx: { t: TestApp }) {
  const get = (path: string, user?: UserName, headers: Record<string, string> = {}) => {
    const request = ctx.t.http().get(`${API}${path}`).set(headers);
    return user ? request.set('Authorization', ctx.t.auth[user]) : request;
  };
  const write = (
    method: 'put' | 'patch' | 'post' | 'delete',
    path: string,
    body: object | undefined,
    ifMatch?: string,
  ) => {
    let request = ctx.t.http()[method](`${API}${path}`).set('Authorization', ctx.t.auth.editor);
    if (ifMatch !== undefined) request = request.set('If-Match', ifMatch);
    return body ? request.send(body) : request;
  };
  const create = async (path: string, body: object): Promise<Body> => {
    const response = await write('post', path, body);
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${response.text}`);
    return response.body as Body;
  };
  /** The ETag an editor's GET of the record carries now (and its body). */
  const tagOf = async (path: string, user: UserName = 'editor') => {
    const response = await get(path, user).expect(200);
    return response.headers.etag as string;
  };
  const event = (title: string, extra: object = {}) =>
    create('/events', {
      title,
      // Inside the default window of /events.
      start_date: dayAt(3, '20:00:00'),
      end_date: dayAt(3, '22:00:00'),
      status: 'publish',
      ...extra,
    });
  return { get, write, create, tagOf, event };
}

/** The caching headers every 200 and 304 of a read carries. */
function expectCachingHeaders(response: Response, visibility: 'public' | 'private') {
  expect(response.headers.etag).toMatch(TAG);
  expect(response.headers['cache-control']).toBe(`no-cache, ${visibility}`);
  expect(response.headers.vary).toBe('Accept-Language, Authorization');
}

/**
 * The ETag docs/api.md §11 promises, written out here rather than taken from the service:
 * `"` + the first 27 characters of the base64url SHA-256 of the body's bytes + `"`.
 */
function documentedTag(body: string): string {
  return `"${createHash('sha256').update(body, 'utf8').digest('base64url').slice(0, 27)}"`;
}

describe('conditional requests (docs/api.md §11)', () => {
  const ctx = useApp({ REQUIRE_IF_MATCH: 'false' });
  const { get, write, create, tagOf, event } = requests(ctx);

  describe('reads', () => {
    it('tag every 200 of a read with a strong ETag of its bytes and the caching headers', async () => {
      const venue = await create('/venues', { venue: 'Paradiso', status: 'publish' });
      const organizer = await create('/organizers', { organizer: 'Stichting', status: 'publish' });
      const category = await create('/categories', { name: 'Jazz' });
      const tag = await create('/tags', { name: 'Gratis' });
      // Not only ASCII: the tag and Content-Length count UTF-8 bytes, not characters.
      const ev = await event('Concert – café 🎷', {
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
        tags: [tag.id],
      });
      const paths = [
        '',
        '/doc',
        '/changes',
        '/events',
        `/events/${ev.id}`,
        `/events/by-slug/${ev.slug as string}`,
        '/venues',
        `/venues/${venue.id}`,
        '/organizers',
        `/organizers/${organizer.id}`,
        '/categories',
        `/categories/${category.id}`,
        '/tags',
        `/tags/${tag.id}`,
      ];
      for (const path of paths) {
        const first = await get(path).expect(200);
        expectCachingHeaders(first, 'public');
        // A hash of exactly the bytes sent, sent as UTF-8 JSON.
        expect([path, first.headers.etag]).toEqual([path, documentedTag(first.text)]);
        expect([path, first.headers['content-type']]).toEqual([
          path,
          'application/json; charset=utf-8',
        ]);
        expect([path, Number(first.headers['content-length'])]).toEqual([
          path,
          Buffer.byteLength(first.text),
        ]);
        const again = await get(path).expect(200);
        expect([path, again.headers.etag]).toEqual([path, first.headers.etag]);
        const head = await ctx.t.http().head(`${API}${path}`).expect(200);
        expect([path, head.headers.etag]).toEqual([path, first.headers.etag]);
      }
    });

    it('answers a matching If-None-Match with 304, no body and the headers of the 200, lists included', async () => {
      await event('Een');
      await event('Twee');
      const page = await get('/events?per_page=1').expect(200);
      expect(page.headers['x-total']).toBe('2');
      expect(page.headers.link).toContain('rel="next"');
      const etag = page.headers.etag as string;
      for (const ifNoneMatch of [etag, `"other", W/${etag}`, '*']) {
        const notModified = await get('/events?per_page=1', undefined, {
          'If-None-Match': ifNoneMatch,
        }).expect(304);
        expect(notModified.text ?? '').toBe('');
        expect(notModified.headers['content-type']).toBeUndefined();
        expectCachingHeaders(notModified, 'public');
        expect(notModified.headers.etag).toBe(etag);
        expect(notModified.headers['x-total']).toBe('2');
        expect(notModified.headers['x-totalpages']).toBe('2');
        expect(notModified.headers.link).toBe(page.headers.link);
      }
      const stale = await get('/events?per_page=1', undefined, {
        'If-None-Match': '"another-version"',
      }).expect(200);
      expect(stale.headers.etag).toBe(etag);
      expect(stale.body).toEqual(page.body);
    });

    it('changes the ETag when the body changes, and only then', async () => {
      const venue = await create('/venues', { venue: 'Paradiso', status: 'publish' });
      const other = await create('/venues', { venue: 'Melkweg', status: 'publish' });
      const before = await get(`/venues/${venue.id}`).expect(200);
      await write('put', `/venues/${other.id}`, { city: 'Amsterdam' }).expect(200);
      const unchanged = await get(`/venues/${venue.id}`).expect(200);
      expect(unchanged.headers.etag).toBe(before.headers.etag);
      await get(`/venues/${venue.id}`, undefined, {
        'If-None-Match': before.headers.etag as string,
      }).expect(304);

      await write('put', `/venues/${venue.id}`, { city: 'Amsterdam' }).expect(200);
      const changed = await get(`/venues/${venue.id}`).expect(200);
      expect(changed.headers.etag).not.toBe(before.headers.etag);
      await get(`/venues/${venue.id}`, undefined, {
        'If-None-Match': before.headers.etag as string,
      }).expect(200);
      // Another language with its own texts is another body, so another tag.
      await write('put', `/venues/${venue.id}?language=en`, { venue: 'Paradise' }).expect(200);
      const dutch = await get(`/venues/${venue.id}`).expect(200);
      const english = await get(`/venues/${venue.id}?language=en`).expect(200);
      expect(english.headers.etag).toBe(documentedTag(english.text));
      expect(english.headers.etag).not.toBe(dutch.headers.etag);
    });

    it('is public without a token and private with one', async () => {
      const ev = await event('Concert');
      expectCachingHeaders(await get(`/events/${ev.id}`).expect(200), 'public');
      const withToken = await get(`/events/${ev.id}`, 'editor').expect(200);
      expectCachingHeaders(withToken, 'private');
      const notModified = await get(`/events/${ev.id}`, 'editor', {
        'If-None-Match': withToken.headers.etag as string,
      }).expect(304);
      expectCachingHeaders(notModified, 'private');
    });

    it('tags no error answer', async () => {
      const missing = await get('/events/999999').expect(404);
      expect(missing.headers.etag).toBeUndefined();
      expect(missing.body).toEqual(errorBody('rest-event-not-found', 404));
    });
  });

  describe('writes with If-Match', () => {
    /** A write's answer is the record its ETag hashes: the next GET's body without json_ld. */
    const expectAnswerIsGet = async (collection: string, answer: Response) => {
      const read = await get(`${collection}/${answer.body.id}`, 'editor').expect(200);
      const { json_ld: _jsonLd, ...plain } = read.body as Body;
      expect(answer.body).toEqual(plain);
      expect(answer.headers.etag).toBe(read.headers.etag);
    };

    it('writes when the tag is current, answering the ETag a following GET carries', async () => {
      const ev = await event('Concert');
      const current = await tagOf(`/events/${ev.id}`);
      const updated = await write(
        'put',
        `/events/${ev.id}`,
        { title: 'Concert II' },
        current,
      ).expect(200);
      expect(updated.body).toMatchObject({ id: ev.id, title: 'Concert II' });
      // The write's body has no json_ld; its ETag is still the GET's.
      expect(updated.body).not.toHaveProperty('json_ld');
      expect(updated.headers.etag).toMatch(TAG);
      expect(updated.headers.etag).not.toBe(current);
      expect(await tagOf(`/events/${ev.id}`)).toBe(updated.headers.etag);
      // Chained without a GET in between.
      const chained = await write(
        'patch',
        `/events/${ev.id}`,
        { title: 'Concert III' },
        updated.headers.etag as string,
      ).expect(200);
      expect(await tagOf(`/events/${ev.id}`)).toBe(chained.headers.etag);
    });

    it("answers every event write with the record its ETag hashes: the next GET's body without json_ld", async () => {
      const venue = await create('/venues', { venue: 'Paradiso', status: 'publish' });
      const organizer = await create('/organizers', { organizer: 'Stichting', status: 'publish' });
      const second = await create('/organizers', { organizer: 'Zaalbeheer', status: 'publish' });
      const sameAsGet = (answer: Response) => expectAnswerIsGet('/events', answer);
      // A create's answer is mapped from the link rows it wrote: organizers in the order sent,
      // terms of both taxonomies (a tag named like a category is another term).
      const created = await write('post', '/events', {
        title: 'Concert',
        start_date: dayAt(3, '20:00:00'),
        end_date: dayAt(3, '22:00:00'),
        status: 'publish',
        venue: venue.id,
        organizer: [second.id, organizer.id],
        categories: ['Jazz', 'Avantgarde'],
        tags: ['buiten', 'Jazz'],
        cost: '10',
      }).expect(201);
      expect(created.body.organizer.map((o: { id: number }) => o.id)).toEqual([
        second.id,
        organizer.id,
      ]);
      await sameAsGet(created);
      const id = created.body.id as number;
      await sameAsGet(
        await write('patch', `/events/${id}`, {
          title: 'Concert II',
          categories: ['Blues'],
        }).expect(200),
      );
      await sameAsGet(await write('delete', `/events/${id}`, undefined).expect(200));
    });

    it.each([
      ['/venues', { venue: 'Paradiso', city: 'Amsterdam', status: 'publish' }, { city: 'Utrecht' }],
      ['/organizers', { organizer: 'Stichting', status: 'publish' }, { phone: '020 123' }],
      ['/categories', { name: 'Jazz' }, { description: 'Swing' }],
      ['/tags', { name: 'buiten' }, { name: 'binnen' }],
    ])(
      "answers %s writes with the record its ETag hashes: the next GET's body without json_ld",
      async (collection, body, change) => {
        const sameAsGet = (answer: Response) => expectAnswerIsGet(collection, answer);
        const created = await write('post', collection, body).expect(201);
        await sameAsGet(created);
        await sameAsGet(
          await write('patch', `${collection}/${created.body.id}`, change).expect(200),
        );
      },
    );

    it('answers 412 and changes nothing when the tag is stale', async () => {
      const ev = await event('Concert');
      const stale = await tagOf(`/events/${ev.id}`);
      await write('put', `/events/${ev.id}`, { title: 'Eerste' }).expect(200);
      const before = await get(`/events/${ev.id}`, 'editor').expect(200);
      const refused = await write('put', `/events/${ev.id}`, { title: 'Tweede' }, stale).expect(
        412,
      );
      expect(refused.body).toEqual(errorBody('rest_precondition_failed', 412));
      expect(refused.headers.etag).toBeUndefined();
      const after = await get(`/events/${ev.id}`, 'editor').expect(200);
      expect(after.body).toEqual(before.body);
      expect(after.headers.etag).toBe(before.headers.etag);
    });

    it('compares strongly: a weak tag, a malformed one or another language’s never holds; a list and * do', async () => {
      const ev = await event('Concert');
      await write('put', `/events/${ev.id}?language=en`, { title: 'Gig' }).expect(200);
      const current = await tagOf(`/events/${ev.id}`);
      const english = await tagOf(`/events/${ev.id}?language=en`);
      expect(english).not.toBe(current);
      for (const ifMatch of [`W/${current}`, current.slice(1, -1), english]) {
        const refused = await write('put', `/events/${ev.id}`, { title: 'X' }, ifMatch).expect(412);
        expect(refused.body).toEqual(errorBody('rest_precondition_failed', 412));
      }
      expect((await get(`/events/${ev.id}`).expect(200)).body.title).toBe('Concert');
      // The tag of the GET in the write's own language holds.
      await write('put', `/events/${ev.id}?language=en`, { title: 'Gig!' }, english).expect(200);
      const listed = await write(
        'post',
        `/events/${ev.id}`,
        { excerpt: 'Kort' },
        `"stale", ${await tagOf(`/events/${ev.id}`)}`,
      ).expect(200);
      expect(listed.body.excerpt).toBe('Kort');
      await write('put', `/events/${ev.id}`, { title: 'Ster' }, '*').expect(200);
    });

    it('lets exactly one of several writers with the same tag through', async () => {
      const venue = await create('/venues', { venue: 'Paradiso', status: 'publish' });
      const current = await tagOf(`/venues/${venue.id}`);
      const answers = await Promise.all(
        ['A', 'B', 'C', 'D'].map((city) =>
          write('put', `/venues/${venue.id}`, { city }, current).then((r) => r.status),
        ),
      );
      expect(answers.sort()).toEqual([200, 412, 412, 412]);
    });

    it('holds by slug for venues, organizers and events', async () => {
      const venue = await create('/venues', { venue: 'Paradiso', status: 'publish' });
      const organizer = await create('/organizers', { organizer: 'Stichting', status: 'publish' });
      const ev = await event('Concert');
      for (const [kind, record, field] of [
        ['venues', venue, 'city'],
        ['organizers', organizer, 'phone'],
        ['events', ev, 'excerpt'],
      ] as const) {
        const bySlug = `/${kind}/by-slug/${record.slug as string}`;
        const current = await tagOf(`/${kind}/${record.id}`);
        expect(await tagOf(bySlug)).toBe(current);
        await write('patch', bySlug, { [field]: '020' }, '"stale"').expect(412);
        const done = await write('patch', bySlug, { [field]: '020' }, current).expect(200);
        expect(done.body[field]).toBe('020');
        expect(await tagOf(bySlug)).toBe(done.headers.etag);
      }
    });

    it('guards DELETE: 412 keeps the record; a current tag trashes it and tags the trashed record', async () => {
      const ev = await event('Concert');
      const venue = await create('/venues', { venue: 'Paradiso', status: 'publish' });
      for (const path of [`/events/${ev.id}`, `/venues/${venue.id}`]) {
        const current = await tagOf(path);
        await write('delete', path, undefined, '"stale"').expect(412);
        expect((await get(path).expect(200)).body.status).toBe('publish');
        const trashed = await write('delete', path, undefined, current).expect(200);
        expect(trashed.body.status).toBe('trash');
        expect(await tagOf(path)).toBe(trashed.headers.etag);
      }
      // Deleted for good: nothing left to tag.
      const gone = await write('delete', `/events/${ev.id}?force=true`, undefined, '*').expect(200);
      expect(gone.headers.etag).toBeUndefined();
      await get(`/events/${ev.id}`, 'editor').expect(404);
    });

    it('guards category and tag writes and deletes', async () => {
      for (const kind of ['categories', 'tags']) {
        const term = await create(`/${kind}`, { name: 'Jazz' });
        const path = `/${kind}/${term.id}`;
        const current = await tagOf(path);
        const refused = await write('put', path, { name: 'Blues' }, '"stale"').expect(412);
        expect(refused.body).toEqual(errorBody('rest_precondition_failed', 412));
        expect((await get(path).expect(200)).body.name).toBe('Jazz');
        const renamed = await write('post', path, { name: 'Blues' }, current).expect(200);
        expect(renamed.body.name).toBe('Blues');
        expect(await tagOf(path)).toBe(renamed.headers.etag);
        await write('delete', path, undefined, current).expect(412);
        await get(path).expect(200);
        await write('delete', path, undefined, renamed.headers.etag as string).expect(200);
        await get(path).expect(404);
      }
    });

    it('still answers 404 for a missing record', async () => {
      const missing = await write('put', '/events/999999', { title: 'X' }, '"a"').expect(404);
      expect(missing.body).toEqual(errorBody('rest-event-not-found', 404));
      await write('delete', '/venues/by-slug/nergens', undefined, '*').expect(404);
      await write('put', '/tags/999999', { name: 'X' }, '*').expect(404);
    });

    it('tags creates with the ETag a following GET carries', async () => {
      for (const [path, body] of [
        ['/events', { title: 'Nieuw', start_date: dayAt(3), end_date: dayAt(3, '13:00:00') }],
        ['/venues', { venue: 'Nieuw' }],
        ['/organizers', { organizer: 'Nieuw' }],
        ['/categories', { name: 'Nieuw' }],
        ['/tags', { name: 'Nieuw' }],
      ] as const) {
        const created = await write('post', path, body).expect(201);
        expect(created.headers.etag).toMatch(TAG);
        expect([path, await tagOf(`${path}/${(created.body as Body).id}`)]).toEqual([
          path,
          created.headers.etag,
        ]);
      }
    });

    it('tags writes without If-Match too', async () => {
      const organizer = await create('/organizers', { organizer: 'Stichting', status: 'publish' });
      const updated = await write('put', `/organizers/${organizer.id}`, {
        phone: '020',
      }).expect(200);
      expect(await tagOf(`/organizers/${organizer.id}`)).toBe(updated.headers.etag);
    });
  });
});

describe('REQUIRE_IF_MATCH=true (docs/api.md §11)', () => {
  const ctx = useApp({ REQUIRE_IF_MATCH: 'true' });
  const { get, write, create, tagOf, event } = requests(ctx);

  it('answers 428 to a write of an existing record without If-Match, and changes nothing', async () => {
    const ev = await event('Concert');
    const category = await create('/categories', { name: 'Jazz' });
    for (const [method, path, body] of [
      ['put', `/events/${ev.id}`, { title: 'X' }],
      ['post', `/events/by-slug/${ev.slug as string}`, { title: 'X' }],
      ['delete', `/events/${ev.id}`, undefined],
      ['patch', `/categories/${category.id}`, { name: 'X' }],
    ] as const) {
      const refused = await write(method, path, body).expect(428);
      expect(refused.body).toEqual(errorBody('rest_precondition_required', 428));
    }
    expect((await get(`/events/${ev.id}`).expect(200)).body).toMatchObject({
      title: 'Concert',
      status: 'publish',
    });
    expect((await get(`/categories/${category.id}`).expect(200)).body.name).toBe('Jazz');
    await write('put', `/events/${ev.id}`, { title: 'Y' }, await tagOf(`/events/${ev.id}`)).expect(
      200,
    );
    await write('put', `/events/${ev.id}`, { title: 'Z' }, '*').expect(200);
  });

  it('keeps 404 for a missing record and never asks creates for If-Match', async () => {
    const missing = await write('put', '/venues/999999', { city: 'X' }).expect(404);
    expect(missing.body).toEqual(errorBody('rest-venue-not-found', 404));
    const created = await write('post', '/venues', { venue: 'Nieuw' }).expect(201);
    expect(created.body).toMatchObject({ venue: 'Nieuw' });
  });
});
