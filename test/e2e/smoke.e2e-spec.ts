import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('answers unknown routes with rest_no_route', async () => {
    const res = await t.http().get(`${API}/nothing`).expect(404);
    expect(res.body).toEqual(errorBody('rest_no_route', 404));
  });
});
