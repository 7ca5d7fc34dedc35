import { FeedServer, feedOf } from '../helpers/feed-server';
import { API, createTestApp, TestApp } from '../helpers/test-app';
import { eventually, sleep } from '../helpers/webhook-receiver';

/*
 * Two instances on one MariaDB database, both running due imports and
 * polling every 50 ms (docs/api.md "Imports": each due run is claimed with
 * one conditional UPDATE). Six URL imports are made on one instance; their
 * first runs and three rounds of refreshes made due at once each reach the
 * feed server exactly once per import and round, and leave one run report
 * each. MySQL only: two instances cannot share an in-memory SQLite database.
 */
const onMysql = process.env.TEST_ENGINE === 'mysql' ? describe : describe.skip;

const IMPORTS = 6;
const ROUNDS = 3;

onMysql('imports on two instances', () => {
  let a: TestApp;
  let b: TestApp;
  let feeds: FeedServer;

  beforeAll(async () => {
    feeds = await new FeedServer().start();
    const env = {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      IMPORTS_POLL_MS: '50',
    };
    // Both empty the database as they start: before anything is made.
    a = await createTestApp(env);
    b = await createTestApp(env);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await feeds?.stop();
  });

  const runsPerImport = async (): Promise<number[]> => {
    const rows: Array<{ n: number | string }> = await a.dataSource.query(
      'SELECT COUNT(r.id) AS n FROM imports i LEFT JOIN import_runs r ON r.import_id = i.id GROUP BY i.id ORDER BY i.id',
    );
    return rows.map((row) => Number(row.n));
  };
  const fetchesPerFeed = () =>
    Array.from({ length: IMPORTS }, (_, i) => feeds.on(`/feed-${i}.ics`).length);

  it('runs each due import once, whichever instance claims it', async () => {
    for (let i = 0; i < IMPORTS; i++) {
      // Answers take a while, so the two instances' polls overlap with runs in progress.
      feeds.serve(`/feed-${i}.ics`, { body: feedOf(`f${i}`, 2), etag: `"${i}"`, delayMs: 40 });
      await a
        .http()
        .post(`${API}/imports`)
        .set('Authorization', a.auth.administrator)
        .send({ url: feeds.url(`/feed-${i}.ics`), source: `feed-${i}` })
        .expect(202);
    }
    const settled = async (round: number) => {
      await eventually(runsPerImport, (runs) => runs.every((n) => n >= round), 30_000);
      // Polls go on on both instances: a second run of the same due time would show now.
      await sleep(500);
      expect(await runsPerImport()).toEqual(Array(IMPORTS).fill(round));
      expect(fetchesPerFeed()).toEqual(Array(IMPORTS).fill(round));
    };
    await settled(1);
    for (let round = 2; round <= ROUNDS + 1; round++) {
      // The refreshes fall due, all at once.
      await a.dataSource.query('UPDATE imports SET next_run_ms = 0');
      await settled(round);
    }
    const outcomes: Array<{ outcome: string; n: number | string }> = await a.dataSource.query(
      'SELECT outcome, COUNT(*) AS n FROM import_runs GROUP BY outcome ORDER BY outcome',
    );
    // The first runs fetched the feeds; every refresh sent the ETag back and got 304.
    expect(outcomes.map((row) => [row.outcome, Number(row.n)])).toEqual([
      ['imported', IMPORTS],
      ['not_modified', IMPORTS * ROUNDS],
    ]);
    const claimsLeft: unknown[] = await a.dataSource.query(
      'SELECT id FROM imports WHERE running_since_ms IS NOT NULL',
    );
    expect(claimsLeft).toEqual([]);
  }, 120_000);
});
