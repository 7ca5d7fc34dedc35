import { createConnection } from 'mysql2/promise';
import { beforeCommit } from '../helpers/before-commit';
import { FeedClient } from '../helpers/changes';
import { API, createTestApp, TestApp } from '../helpers/test-app';

/*
 * The changes feed under concurrent writers (contract §12): a client that
 * polls while writes commit never misses a committed change, even when two
 * transactions commit in the opposite order of their start (the one that
 * started first got the smaller auto-increment ID, but commits last).
 */

/** Skipped, and reported so, on SQLite. */
const itOnMysql = process.env.TEST_ENGINE === 'mysql' ? it : it.skip;

describe('changes feed under concurrent writes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  const post = async (path: string, body: object) => {
    const response = await t
      .http()
      .post(`${API}${path}`)
      .set('Authorization', t.auth.editor)
      .send(body);
    if (response.status !== 201 && response.status !== 200) {
      throw new Error(`${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
    }
    return response.body as { id: number } & Record<string, unknown>;
  };
  const event = (title: string, extra: object = {}) => ({
    title,
    start_date: '2030-05-01 20:00:00',
    end_date: '2030-05-01 23:00:00',
    ...extra,
  });
  /** Every record of the five lists, as `kind:id`. */
  const listed = async () => {
    const keys: string[] = [];
    for (const [collection, kind] of [
      ['events', 'event'],
      ['venues', 'venue'],
      ['organizers', 'organizer'],
      ['categories', 'category'],
      ['tags', 'tag'],
    ]) {
      const response = await t
        .http()
        .get(`${API}/${collection}`)
        .query({
          per_page: 50,
          ...(collection === 'events' ? { start_date: '2000-01-01', end_date: '2100-01-01' } : {}),
        })
        .query(collection === 'categories' || collection === 'tags' ? { hide_empty: false } : {})
        .expect(200);
      for (const record of response.body[collection] as Array<{ id: number }>)
        keys.push(`${kind}:${record.id}`);
    }
    return keys.sort();
  };

  // SQLite runs one write transaction at a time, so commit order is start order there by construction.
  itOnMysql(
    'a write that started first and commits last is not skipped by a client that polled in between (MySQL)',
    async () => {
      const category = await post('/categories', { name: 'Jazz' });
      const client = new FeedClient(t);
      await client.sync();

      // Hold the category's row lock: the event write below stops there, after inserting its inline
      // venue. The category is named by name: a write locks the terms it names by ID first, before
      // anything else, and those it finds by name when it counts them, after its inline records.
      const blocker = await createConnection({ uri: process.env.DATABASE_URL as string });
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT id FROM terms WHERE id = ? FOR UPDATE', [category.id]);
        const slow = post(
          '/events',
          event('Late', { venue: { venue: 'Late Hall' }, categories: ['Jazz'] }),
        );
        await waitForLockWait(blocker);

        // Started later, commits first, with a greater venue ID.
        const fast = await post('/venues', { venue: 'Early Hall' });
        const early = await client.sync();
        expect(early.map((c) => `${c.kind}:${c.id}`)).toEqual([`venue:${fast.id}`]);

        await blocker.query('COMMIT');
        const late = await slow;
        const lateVenue = (late.venue as { id: number }).id;
        expect(lateVenue).toBeLessThan(fast.id);
        // The late commit comes after the cursor the client already holds: nothing skipped.
        const after = await client.sync();
        expect(after.map((c) => `${c.kind}:${c.id}`).sort()).toEqual(
          [`category:${category.id}`, `event:${late.id}`, `venue:${lateVenue}`].sort(),
        );
        expect(client.keys()).toEqual(await listed());
      } finally {
        await blocker.end();
      }
    },
  );

  it('a write that took its sequence numbers holds the next writer until it commits (both engines)', async () => {
    const client = new FeedClient(t);
    await client.sync();
    // Holds the first transaction that gets here: after the change tracking (registered first), before COMMIT.
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let armed = true;
    const unregister = beforeCommit(t.app, async () => {
      if (!armed) return;
      armed = false;
      entered();
      await gate;
    });
    try {
      const slow = post('/venues', { venue: 'First' });
      await inside;
      let fastDone = false;
      const fast = post('/venues', { venue: 'Second' }).then((body) => {
        fastDone = true;
        return body;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The second write cannot take a number (and commit) while the first holds one uncommitted.
      expect(fastDone).toBe(false);
      // A poll meanwhile (on MySQL it answers at once with nothing; SQLite's feed reads wait for the open write).
      const during = client.sync();
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      const [first, second] = await Promise.all([slow, fast]);
      const seen = [...(await during), ...(await client.sync())];
      expect(seen.map((c) => `${c.kind}:${c.id}`)).toEqual([
        `venue:${first.id}`,
        `venue:${second.id}`,
      ]);
      if (t.engine === 'mysql') expect((await during).length).toBe(0);
    } finally {
      release();
      unregister();
    }
  });

  it('a client polling during many concurrent writes ends with every record', async () => {
    const client = new FeedClient(t, undefined, { per_page: 3 });
    let writing = true;
    const polling = (async () => {
      while (writing) await client.sync();
    })();
    const writes = Array.from({ length: 24 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return post('/venues', { venue: `Hall ${i}` });
        case 1:
          return post('/organizers', { organizer: `Org ${i}` });
        case 2:
          return post('/tags', { name: `Tag ${i}` });
        default:
          return post(
            '/events',
            event(`Event ${i}`, { categories: ['Shared'], venue: { venue: `Inline ${i}` } }),
          );
      }
    });
    await Promise.all(writes);
    writing = false;
    await polling;
    await client.sync();
    expect(client.keys()).toEqual(await listed());
    expect(client.keys()).toHaveLength(24 + 6 + 1);
  });
});

/** Resolves once another connection waits for the term row the blocker holds. */
async function waitForLockWait(
  blocker: Awaited<ReturnType<typeof createConnection>>,
): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const [rows] = await blocker.query(
      // The write's locking read of the term rows, waiting on this connection's lock.
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID() AND INFO LIKE '%FROM%terms%FOR UPDATE%'",
    );
    if (Number((rows as Array<{ n: number }>)[0].n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the write never waited for the lock');
}
