import { API, createTestApp, errorBody, TestApp } from '../helpers/test-app';

/*
 * Query size limits (docs/api.md §8): every parameter is bounded by validation,
 * the query parser reads at most 1,000 parameters, and Node itself refuses a
 * request line and headers over 16 KiB before the application sees them.
 */
describe('request size limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('answers an over-long parameter with 400 naming it', async () => {
    const res = await t
      .http()
      .get(`${API}/events?search=${'a'.repeat(5000)}`)
      .expect(400);
    expect(res.body).toEqual(errorBody('rest_invalid_param', 400, { search: expect.any(String) }));
  });

  it('reads at most 1,000 parameters and ignores unknown ones', async () => {
    const many = Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join('&');
    const res = await t.http().get(`${API}/events?${many}`).expect(200);
    expect(res.body).toEqual(expect.objectContaining({ events: [], total: 0 }));
  });

  it('refuses a request line over 16 KiB before it reaches the application', async () => {
    const res = await t.http().get(`${API}/events?search=${'a'.repeat(20_000)}`);
    expect(res.status).toBe(431);
  });

  it('answers a list with more than 100 items in a parameter with 400', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
    const res = await t.http().get(`${API}/events?include=${ids}`).expect(400);
    expect(res.body).toEqual(errorBody('rest_invalid_param', 400, { include: expect.any(String) }));
  });
});
