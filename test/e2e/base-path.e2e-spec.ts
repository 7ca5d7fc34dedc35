import { createTestApp, errorBody, TestApp } from './helpers/test-app';

describe('API_BASE_PATH=/wp-json', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ API_BASE_PATH: '/wp-json' });
  });
  afterAll(() => t?.close());

  it('moves the namespace, the doc and Swagger UI under the prefix; health stays at the root', async () => {
    const index = await t.http().get('/wp-json/calendar/events/v1').expect(200);
    const host = index.request.url.split('/')[2];
    expect(index.body._links).toEqual({ up: [{ href: `http://${host}/wp-json/` }] });
    expect(Object.keys(index.body.routes)).toContain('/calendar/events/v1/events/{id}');
    const doc = await t.http().get('/wp-json/calendar/events/v1/doc').expect(200);
    expect(doc.body.servers).toEqual([{ url: `http://${doc.request.url.split('/')[2]}/wp-json/calendar/events/v1` }]);
    await t.http().get('/wp-json/calendar/events/v1/categories').expect(200);
    expect((await t.http().get('/calendar/events/v1/categories').expect(404)).body).toEqual(
      errorBody('rest_no_route', 404),
    );
    await t.http().get('/wp-json/docs/').expect(200);
    await t.http().get('/health/live').expect(200);
  });
});
