import { API, createTestApp, errorBody, TestApp } from '../helpers/test-app';

/*
 * The embedded database goes away under a running service (its handle closed, as when the
 * file's volume is unmounted or the process is shutting down): requests answer the documented
 * 503, never a 500 with the driver's message. SQLite project only: the MySQL faults are in
 * database-faults.e2e-spec.ts.
 */
const onSqlite = process.env.TEST_ENGINE === 'mysql' ? describe.skip : describe;

onSqlite('embedded database faults', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('answers 503 rest_service_unavailable when the SQLite handle is closed', async () => {
    const before = await t.http().get(`${API}/categories?hide_empty=false`);
    expect(before.status).toBe(200);
    const driver = t.dataSource.driver as unknown as { databaseConnection: { close(): void } };
    driver.databaseConnection.close();

    for (const path of [`${API}/categories?hide_empty=false`, `${API}/events`, `${API}/venues/1`]) {
      const res = await t.http().get(path);
      expect(res.status).toBe(503);
      expect(res.body).toEqual(errorBody('rest_service_unavailable', 503));
      expect(JSON.stringify(res.body)).not.toMatch(/database connection|sqlite/i);
    }
    const ready = await t.http().get('/health/ready');
    expect(ready.status).toBe(503);
  });
});
