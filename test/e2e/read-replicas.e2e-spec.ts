import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { API, createTestApp, errorBody, mysqlTestUrl, TestApp } from './helpers/test-app';

/*
 * Read replicas (DATABASE_READ_URLS, MySQL only). The "replica" here is a
 * second database on the same server with the same schema but none of the
 * primary's rows, so every answer shows which side served it: anonymous
 * GETs read the replica; writes, their read-back and authenticated reads
 * use the primary.
 */
const onMysql = process.env.TEST_ENGINE === 'mysql' ? describe : describe.skip;

onMysql('read replicas (MySQL)', () => {
  let t: TestApp;
  let replicaUrl: string;
  let replicaDatabase: string;
  let serverUrl: string;

  beforeAll(async () => {
    const test = mysqlTestUrl();
    serverUrl = test.serverUrl;
    replicaDatabase = `${test.database}_replica`;
    replicaUrl = test.url.replace(`/${test.database}`, `/${replicaDatabase}`);
    const server = await createConnection({ uri: serverUrl });
    await server.query(`DROP DATABASE IF EXISTS \`${replicaDatabase}\``);
    await server.query(
      `CREATE DATABASE \`${replicaDatabase}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    await server.end();
    const replica = new DataSource(
      dataSourceOptions({ databaseUrl: replicaUrl, sqlitePath: ':memory:', migrationsRun: true }),
    );
    await replica.initialize();
    await replica.destroy();
    t = await createTestApp({ DATABASE_READ_URLS: replicaUrl });
  });

  afterAll(async () => {
    await t?.close();
    const server = await createConnection({ uri: serverUrl });
    await server.query(`DROP DATABASE IF EXISTS \`${replicaDatabase}\``);
    await server.end();
  });

  it('answers a write with the record read back from the primary', async () => {
    const created = await t
      .http()
      .post(`${API}/venues`)
      .set('Authorization', t.auth.editor)
      .send({ venue: 'Paradiso' })
      .expect(201);
    expect(created.body).toEqual(expect.objectContaining({ venue: 'Paradiso', status: 'publish' }));
    const updated = await t
      .http()
      .patch(`${API}/venues/${created.body.id}`)
      .set('Authorization', t.auth.editor)
      .send({ city: 'Amsterdam' })
      .expect(200);
    expect(updated.body).toEqual(expect.objectContaining({ venue: 'Paradiso', city: 'Amsterdam' }));
  });

  it('serves anonymous reads from the replica and authenticated reads from the primary', async () => {
    const { body } = await t
      .http()
      .post(`${API}/venues`)
      .set('Authorization', t.auth.editor)
      .send({ venue: 'Melkweg' })
      .expect(201);

    // The replica has no rows (a replica that has not caught up looks the same).
    const anonymous = await t.http().get(`${API}/venues/${body.id}`).expect(404);
    expect(anonymous.body).toEqual(errorBody('rest-venue-not-found', 404));
    const anonymousList = await t.http().get(`${API}/venues`).expect(200);
    expect(anonymousList.body).toEqual(expect.objectContaining({ venues: [], total: 0 }));

    const editor = await t
      .http()
      .get(`${API}/venues/${body.id}`)
      .set('Authorization', t.auth.editor)
      .expect(200);
    expect(editor.body.venue).toBe('Melkweg');
    const editorList = await t.http().get(`${API}/venues`).set('Authorization', t.auth.editor).expect(200);
    expect(editorList.body.venues.map((venue: { venue: string }) => venue.venue).sort()).toEqual([
      'Melkweg',
      'Paradiso',
    ]);
  });

  it('reports ready while the primary answers', async () => {
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
  });
});
