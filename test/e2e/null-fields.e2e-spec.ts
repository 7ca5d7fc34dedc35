import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/* `null` for a field that cannot be empty is a 400 naming it, never a 500 (found by a bad-input sweep). */

describe('null for fields that cannot be empty', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    // One port for every request, so URLs in records compare equal.
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t?.close());

  it.each([
    [
      'venues',
      { venue: 'V' },
      [
        'status',
        'author',
        'show_map',
        'show_map_link',
        'date',
        'date_utc',
        'description',
        'excerpt',
        'slug',
      ],
    ],
    [
      'organizers',
      { organizer: 'O' },
      ['status', 'author', 'date', 'date_utc', 'description', 'excerpt', 'slug'],
    ],
    [
      'events',
      { title: 'E', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' },
      ['status', 'author', 'all_day', 'featured', 'timezone', 'description', 'excerpt', 'slug'],
    ],
  ])('%s: create and update answer 400 and change nothing', async (kind, body, fields) => {
    const created = await t
      .http()
      .post(`${API}/${kind}`)
      .set('Authorization', t.auth.editor)
      .send(body)
      .expect(201);
    for (const field of fields) {
      const create = await t
        .http()
        .post(`${API}/${kind}`)
        .set('Authorization', t.auth.editor)
        .send({ ...body, [field]: null })
        .expect(400);
      expect(create.body).toEqual(
        errorBody('rest_invalid_param', 400, { [field]: expect.any(String) }),
      );
      const update = await t
        .http()
        .patch(`${API}/${kind}/${created.body.id}`)
        .set('Authorization', t.auth.editor)
        .send({ [field]: null })
        .expect(400);
      expect(update.body).toEqual(
        errorBody('rest_invalid_param', 400, { [field]: expect.any(String) }),
      );
    }
    const after = await t
      .http()
      .get(`${API}/${kind}/${created.body.id}`)
      .set('Authorization', t.auth.editor)
      .expect(200);
    expect({ ...after.body, json_ld: undefined }).toEqual({ ...created.body, json_ld: undefined });
  });
});
