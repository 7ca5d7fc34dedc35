import { errorBody } from './helpers/test-app';
import {
  describeSharedTermBehaviour,
  termKeys,
  termRecord,
  termRequests,
  useTermApp,
  type ExpectedTerm,
} from './helpers/terms';

describe('categories', () => {
  const ctx = useTermApp();
  describeSharedTermBehaviour('category', ctx);

  let api: ReturnType<typeof termRequests>;
  beforeAll(() => {
    api = termRequests(ctx.t, 'category');
  });
  const record = (term: ExpectedTerm) => termRecord('category', term);
  const allNames = async (query: string) =>
    api.names((await api.list(`?hide_empty=false${query}`).expect(200)).body);
  const invalidParent = async (
    request: ReturnType<typeof api.create>,
    reason: string,
  ): Promise<void> => {
    const res = await request.expect(400);
    expect(res.body).toEqual(errorBody('rest_invalid_param', 400, { parent: `parent ${reason}` }));
  };

  describe('parents', () => {
    it('creates a child category with parent and urls.up, in the documented order', async () => {
      await api.create({ name: 'Muziek' }).expect(201);
      const child = await api.create({ name: 'Jazz', parent: 1 }).expect(201);
      const expected = record({ id: 2, name: 'Jazz', slug: 'jazz', parent: 1 });
      expect(child.body).toEqual(expected);
      expect(Object.keys(child.body)).toEqual(termKeys('category'));
      expect(Object.keys(child.body.urls)).toEqual(['self', 'collection', 'up']);
      expect(child.body.urls.up).toBe(`${ctx.base}/categories/1`);
      expect((await api.get(2).expect(200)).body).toEqual(expected);

      // String IDs and 0 (no parent) are accepted.
      const fromString = await api.create({ name: 'Pop', parent: '1' }).expect(201);
      expect(fromString.body).toEqual(record({ id: 3, name: 'Pop', slug: 'pop', parent: 1 }));
      const root = await api.create({ name: 'Theater', parent: 0 }).expect(201);
      expect(root.body).toEqual(record({ id: 4, name: 'Theater', slug: 'theater' }));
      expect(Object.keys(root.body.urls)).toEqual(['self', 'collection']);

      // A translation keeps the parent.
      const english = await api
        .update(2, { name: 'Jazz music' }, { query: '?language=en' })
        .expect(200);
      expect(english.body).toEqual(
        record({
          id: 2,
          name: 'Jazz music',
          slug: 'jazz-music',
          parent: 1,
          language: 'en',
          languages: ['nl', 'en'],
        }),
      );
    });

    it('checks that the parent is an existing category', async () => {
      await api.create({ name: 'Muziek' }).expect(201);
      const tag = await termRequests(ctx.t, 'tag').create({ name: 'Tag' }, 'editor').expect(201);
      const cases: Array<[unknown, string]> = [
        [999, 'refers to a record that does not exist.'],
        [tag.body.id, 'refers to a record that does not exist.'],
        ['abc', 'is not of type integer.'],
        [1.5, 'is not of type integer.'],
        [[1], 'is not of type integer.'],
        [-1, 'is out of range.'],
        [2147483648, 'is out of range.'],
      ];
      for (const [parent, reason] of cases) {
        await invalidParent(api.create({ name: 'Jazz', parent }, 'author', '?language=en'), reason);
        await invalidParent(api.update(1, { parent }, { query: '?language=en' }), reason);
      }
      expect(await allNames('')).toEqual(['Muziek']);
    });

    it('refuses to make a category its own parent or the child of a descendant', async () => {
      await api.create({ name: 'Muziek' }).expect(201);
      await api.create({ name: 'Jazz', parent: 1 }).expect(201);
      await api.create({ name: 'Bebop', parent: 2 }).expect(201);
      const cycle = 'would make a category its own ancestor.';
      await invalidParent(api.update(1, { parent: 1 }, { query: '?language=en' }), cycle);
      await invalidParent(api.update(1, { parent: 2 }, { query: '?language=en' }), cycle);
      await invalidParent(
        api.update(1, { parent: 3 }, { method: 'put', query: '?language=en' }),
        cycle,
      );
      await invalidParent(api.update(2, { parent: 3 }, { query: '?language=en' }), cycle);
      expect((await api.get(1).expect(200)).body).toEqual(
        record({ id: 1, name: 'Muziek', slug: 'muziek' }),
      );

      // Moving within the tree and back to the top is fine.
      const moved = await api.update(3, { parent: 1 }).expect(200);
      expect(moved.body).toEqual(record({ id: 3, name: 'Bebop', slug: 'bebop', parent: 1 }));
      const top = await api.update(3, { parent: 0 }).expect(200);
      expect(top.body).toEqual(record({ id: 3, name: 'Bebop', slug: 'bebop' }));
      expect(Object.keys(top.body.urls)).toEqual(['self', 'collection']);
      const under = await api.update(1, { parent: 3 }, { method: 'post' }).expect(200);
      expect(under.body).toEqual(record({ id: 1, name: 'Muziek', slug: 'muziek', parent: 3 }));
      // An update that leaves parent out keeps it.
      expect((await api.update(2, { description: 'Swing' }).expect(200)).body).toEqual(
        record({ id: 2, name: 'Jazz', slug: 'jazz', parent: 1, description: 'Swing' }),
      );
    });

    it('allows the same name under another parent, not under the same one', async () => {
      await api.createAll([{ name: 'Muziek' }, { name: 'Theater' }]);
      await api.createAll([
        { name: 'Jazz', parent: 1 },
        { name: 'Jazz', parent: 2 },
        { name: 'Jazz' },
      ]);
      expect((await api.list('?hide_empty=false&search=jazz').expect(200)).body.categories).toEqual(
        [
          record({ id: 3, name: 'Jazz', slug: 'jazz', parent: 1 }),
          record({ id: 4, name: 'Jazz', slug: 'jazz-2', parent: 2 }),
          record({ id: 5, name: 'Jazz', slug: 'jazz-3' }),
        ],
      );
      const exists = (termId: number) =>
        errorBody('term_exists', 400, undefined, { term_id: termId });
      expect((await api.create({ name: 'jazz', parent: 1 }).expect(400)).body).toEqual(exists(3));
      expect((await api.create({ name: 'JAZZ' }).expect(400)).body).toEqual(exists(5));
      expect((await api.create({ name: 'Jazz', parent: 0 }).expect(400)).body).toEqual(exists(5));

      // Moving next to a namesake, with or without other changes, is refused.
      expect((await api.update(4, { parent: 1 }).expect(400)).body).toEqual(exists(3));
      expect((await api.update(4, { parent: 1, description: 'Modern' }).expect(400)).body).toEqual(
        exists(3),
      );
      expect((await api.update(5, { parent: 2, slug: 'jazz-top' }).expect(400)).body).toEqual(
        exists(4),
      );
      expect((await api.update(4, { parent: 0 }, { method: 'put' }).expect(400)).body).toEqual(
        exists(5),
      );
      // Renaming while moving is fine.
      const renamed = await api.update(4, { parent: 1, name: 'Modern Jazz' }).expect(200);
      expect(renamed.body).toEqual(
        record({ id: 4, name: 'Modern Jazz', slug: 'jazz-2', parent: 1 }),
      );
    });

    it('checks every language of a moved category for namesakes', async () => {
      await api.create({ name: 'Muziek' }).expect(201);
      await api.create({ name: 'Blues' }).expect(201);
      await api.update(2, { name: 'Blues' }, { query: '?language=en' }).expect(200);
      await api.create({ name: 'Blauw', parent: 1 }).expect(201);
      await api.update(3, { name: 'Blues' }, { query: '?language=en' }).expect(200);
      const exists = errorBody('term_exists', 400, undefined, { term_id: 2 });
      expect((await api.update(3, { parent: 0 }).expect(400)).body).toEqual(exists);
      expect((await api.update(3, { parent: 0, description: 'Blauw' }).expect(400)).body).toEqual(
        exists,
      );
      expect((await api.update(3, { parent: 0, name: 'Blauwe muziek' }).expect(400)).body).toEqual(
        exists,
      );
      expect(
        (await api.update(3, { parent: 0, name: 'Blue' }, { query: '?language=en' }).expect(200))
          .body,
      ).toEqual(
        record({ id: 3, name: 'Blue', slug: 'blues-2', language: 'en', languages: ['nl', 'en'] }),
      );
    });

    it('unparents the children of a deleted category', async () => {
      await api.createAll([
        { name: 'Muziek' },
        { name: 'Jazz', parent: 1 },
        { name: 'Bebop', parent: 2 },
        { name: 'Pop', parent: 1 },
        { name: 'Theater' },
      ]);
      const res = await api.remove(1).expect(200);
      expect(res.body).toEqual(record({ id: 1, name: 'Muziek', slug: 'muziek' }));

      const jazz = await api.get(2).expect(200);
      expect(jazz.body).toEqual(record({ id: 2, name: 'Jazz', slug: 'jazz' }));
      expect(Object.keys(jazz.body.urls)).toEqual(['self', 'collection']);
      expect((await api.get(4).expect(200)).body).toEqual(
        record({ id: 4, name: 'Pop', slug: 'pop' }),
      );
      // Grandchildren keep their own parent.
      expect((await api.get(3).expect(200)).body).toEqual(
        record({ id: 3, name: 'Bebop', slug: 'bebop', parent: 2 }),
      );

      // The unparented children now clash with new top-level namesakes.
      expect((await api.create({ name: 'Pop' }).expect(400)).body).toEqual(
        errorBody('term_exists', 400, undefined, { term_id: 4 }),
      );
      // Deleting a child leaves its parent alone.
      await api.remove(3).expect(200);
      expect((await api.get(2).expect(200)).body).toEqual(jazz.body);
    });

    it('refuses to delete a category whose child would clash with a top-level namesake', async () => {
      await api.createAll([{ name: 'Muziek' }, { name: 'Jazz', parent: 1 }, { name: 'Jazz' }]);
      const res = await api.remove(1).expect(400);
      expect(res.body).toEqual(errorBody('term_exists', 400, undefined, { term_id: 3 }));
      expect((await api.get(1).expect(200)).body).toEqual(
        record({ id: 1, name: 'Muziek', slug: 'muziek' }),
      );
      expect((await api.get(2).expect(200)).body).toEqual(
        record({ id: 2, name: 'Jazz', slug: 'jazz', parent: 1 }),
      );
      // After renaming the child, the delete goes through.
      await api.update(2, { name: 'Jazz (muziek)' }).expect(200);
      await api.remove(1).expect(200);
      expect((await api.get(2).expect(200)).body).toEqual(
        record({ id: 2, name: 'Jazz (muziek)', slug: 'jazz' }),
      );
    });

    it('lists the children of a parent and checks the parent filter', async () => {
      await api.createAll([
        { name: 'Muziek' },
        { name: 'Pop', parent: 1 },
        { name: 'Jazz', parent: 1 },
        { name: 'Bebop', parent: 3 },
        { name: 'Theater' },
      ]);
      const children = await api.list('?hide_empty=false&parent=1').expect(200);
      expect(children.body).toEqual({
        categories: [
          record({ id: 3, name: 'Jazz', slug: 'jazz', parent: 1 }),
          record({ id: 2, name: 'Pop', slug: 'pop', parent: 1 }),
        ],
        rest_url: `${ctx.base}/categories?hide_empty=false&parent=1&page=1`,
        total: 2,
        total_pages: 1,
      });
      expect(await allNames('&parent=3')).toEqual(['Bebop']);
      expect(await allNames('&parent=5')).toEqual([]);

      const tag = await termRequests(ctx.t, 'tag').create({ name: 'Tag' }, 'editor').expect(201);
      const cases: Array<[string, string]> = [
        ['999', 'refers to a record that does not exist.'],
        [String(tag.body.id), 'refers to a record that does not exist.'],
        ['0', 'is out of range.'],
        ['abc', 'is not of type integer.'],
      ];
      for (const [value, reason] of cases) {
        const res = await api.list(`?parent=${value}&language=en`).expect(400);
        expect(res.body).toEqual(
          errorBody('rest_invalid_param', 400, { parent: `parent ${reason}` }),
        );
      }
    });
  });
});
