import { API } from './helpers/test-app';
import {
  describeSharedTermBehaviour,
  termKeys,
  termRecord,
  termRequests,
  useTermApp,
} from './helpers/terms';

describe('tags', () => {
  const ctx = useTermApp();
  describeSharedTermBehaviour('tag', ctx);

  let api: ReturnType<typeof termRequests>;
  beforeAll(() => {
    api = termRequests(ctx.t, 'tag');
  });

  describe('no hierarchy', () => {
    it('has no parent: the field is not in the record and ignored on input', async () => {
      await api.create({ name: 'Buiten' }).expect(201);
      const created = await api.create({ name: 'Gratis', parent: 1 }).expect(201);
      const expected = termRecord('tag', { id: 2, name: 'Gratis', slug: 'gratis' });
      expect(created.body).toEqual(expected);
      expect(Object.keys(created.body)).toEqual(termKeys('tag'));
      expect(Object.keys(created.body.urls)).toEqual(['self', 'collection']);

      const updated = await api.update(2, { parent: 1 }).expect(200);
      expect(updated.body).toEqual(expected);
      // Only one name per language, whatever `parent` says.
      const again = await api.create({ name: 'gratis', parent: 1 }).expect(400);
      expect(again.body.data).toEqual({ status: 400, term_id: 2 });
      // `parent` is no tag list parameter: ignored like any unknown one.
      const listed = await ctx.t.http().get(`${API}/tags?hide_empty=false&parent=999`).expect(200);
      expect(api.names(listed.body)).toEqual(['Buiten', 'Gratis']);
    });
  });
});
