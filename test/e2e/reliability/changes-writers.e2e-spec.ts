import fc from 'fast-check';
import { FeedClient, followedRecords, listedRecords } from '../helpers/changes';
import { API, createTestApp, TestApp } from '../helpers/test-app';

/*
 * Convergence of the changes feed under concurrent writers (contract §12),
 * repeated: in each run 4 writers write at once (events linking shared
 * venues, organizers and terms, renames and status changes of those, event
 * edits and trashes) while an anonymous and an editor's client follow
 * `/changes` in small pages. When the writers are done, each client's copy
 * (embedded venue, organizer and term copies replaced from its own entries,
 * as docs/sync.md says) equals the full lists field by field.
 *
 * CHANGES_WRITER_RUNS sets the number of runs, FUZZ_SEED the seed. By default
 * 50 runs on SQLite and 10 on MariaDB, whose per-run reset and writes take
 * four to six times as long on a loaded 2-core machine (15 runs took 70-95 s
 * there): `CHANGES_WRITER_RUNS=50` runs the full 50 on MariaDB too.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const runsFor = (engine: string) =>
  Number(process.env.CHANGES_WRITER_RUNS ?? (engine === 'mysql' ? 10 : 50));
const WRITERS = 4;
const WRITES_PER_WRITER = 4;

type Kind = 'venue' | 'organizer' | 'category' | 'tag' | 'event';

type Write =
  | {
      type: 'createEvent';
      venue: number;
      organizers: number[];
      categories: number[];
      tags: number[];
    }
  | { type: 'updateEvent'; pick: number; venue?: number; categories?: number[]; title?: string }
  | { type: 'renamePost'; kind: 'venue' | 'organizer'; pick: number; name: string }
  | {
      type: 'setPostStatus';
      kind: 'venue' | 'organizer';
      pick: number;
      status: 'publish' | 'draft';
    }
  | { type: 'renameTerm'; kind: 'category' | 'tag'; pick: number; name: string }
  | { type: 'trashEvent'; pick: number }
  | { type: 'createTerm'; kind: 'category' | 'tag'; name: string };

const pick = fc.nat({ max: 20 });
const picks = fc.array(pick, { maxLength: 2 });
const name = fc.constantFrom('Alpha', 'beta', 'Gamma', 'Zeta', 'Échelle', 'omega');

const write: fc.Arbitrary<Write> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('createEvent' as const),
      venue: pick,
      organizers: picks,
      categories: picks,
      tags: picks,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        type: fc.constant('updateEvent' as const),
        pick,
        venue: pick,
        categories: picks,
        title: name,
      },
      { requiredKeys: ['type', 'pick'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('renamePost' as const),
      kind: fc.constantFrom('venue' as const, 'organizer' as const),
      pick,
      name,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('setPostStatus' as const),
      kind: fc.constantFrom('venue' as const, 'organizer' as const),
      pick,
      status: fc.constantFrom('publish' as const, 'draft' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('renameTerm' as const),
      kind: fc.constantFrom('category' as const, 'tag' as const),
      pick,
      name,
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('trashEvent' as const), pick }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('createTerm' as const),
      kind: fc.constantFrom('category' as const, 'tag' as const),
      name,
    }),
  },
);

const COLLECTION: Record<Kind, string> = {
  venue: 'venues',
  organizer: 'organizers',
  category: 'categories',
  tag: 'tags',
  event: 'events',
};

describe('changes feed under 4 concurrent writers (repeated property)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    // Real sockets: the writers and the followers' requests overlap.
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t?.close());

  it('followers of /changes hold exactly what fresh full lists show, in each run', async () => {
    const RUNS = runsFor(t.engine);
    const started = Date.now();
    let writes = 0;
    console.log(`changes under writers (${t.engine}): seed ${SEED}, ${RUNS} runs`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(write, { minLength: WRITES_PER_WRITER, maxLength: WRITES_PER_WRITER }), {
          minLength: WRITERS,
          maxLength: WRITERS,
        }),
        async (writers) => {
          await t.reset();
          const ids: Record<Kind, number[]> = {
            venue: [],
            organizer: [],
            category: [],
            tag: [],
            event: [],
          };
          const choose = (kind: Kind, n: number) => ids[kind][n % ids[kind].length];
          const post = async (path: string, body: object) => {
            writes += 1;
            const response = await t
              .http()
              .post(`${API}${path}`)
              .set('Authorization', t.auth.editor)
              .send(body);
            if (response.status >= 500 || (response.status !== 200 && response.status !== 201))
              throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
            return response.body as { id: number };
          };
          const create = async (kind: Kind, body: object) =>
            ids[kind].push((await post(`/${COLLECTION[kind]}`, body)).id);
          await create('venue', { venue: 'Hall', city: 'Utrecht' });
          await create('organizer', { organizer: 'Org' });
          await create('category', { name: 'Category' });
          await create('tag', { name: 'Tag' });
          await create('event', {
            title: 'First',
            start_date: '2030-05-01 20:00:00',
            end_date: '2030-05-01 22:00:00',
            venue: ids.venue[0],
            categories: [ids.category[0]],
          });

          const apply = async (w: Write): Promise<void> => {
            switch (w.type) {
              case 'createEvent':
                return void (await create('event', {
                  title: `Event ${ids.event.length}`,
                  start_date: '2030-05-02 20:00:00',
                  end_date: '2030-05-02 22:00:00',
                  venue: choose('venue', w.venue),
                  organizer: [...new Set(w.organizers.map((n) => choose('organizer', n)))],
                  categories: [...new Set(w.categories.map((n) => choose('category', n)))],
                  tags: [...new Set(w.tags.map((n) => choose('tag', n)))],
                }));
              case 'updateEvent': {
                const body: Record<string, unknown> = {};
                if (w.venue !== undefined) body.venue = choose('venue', w.venue);
                if (w.categories !== undefined)
                  body.categories = [...new Set(w.categories.map((n) => choose('category', n)))];
                if (w.title !== undefined) body.title = w.title;
                return void (await post(`/events/${choose('event', w.pick)}`, body));
              }
              case 'renamePost':
                return void (await post(`/${COLLECTION[w.kind]}/${choose(w.kind, w.pick)}`, {
                  [w.kind]: w.name,
                }));
              case 'setPostStatus':
                return void (await post(`/${COLLECTION[w.kind]}/${choose(w.kind, w.pick)}`, {
                  status: w.status,
                }));
              case 'renameTerm':
                return void (await post(`/${COLLECTION[w.kind]}/${choose(w.kind, w.pick)}`, {
                  name: `${w.name} ${w.pick}`,
                }));
              case 'trashEvent': {
                writes += 1;
                const response = await t
                  .http()
                  .delete(`${API}/events/${choose('event', w.pick)}`)
                  .set('Authorization', t.auth.editor);
                // Trashing an event already in the trash answers 410; anything else is a bug.
                if (response.status !== 200 && response.status !== 410)
                  throw new Error(`trash: ${response.status} ${JSON.stringify(response.body)}`);
                return;
              }
              case 'createTerm':
                // A taken name answers 400 term_exists: a valid outcome of concurrent writers.
                writes += 1;
                await t
                  .http()
                  .post(`${API}/${COLLECTION[w.kind]}`)
                  .set('Authorization', t.auth.editor)
                  .send({ name: w.name })
                  .then((response) => {
                    if (response.status === 201) ids[w.kind].push(response.body.id as number);
                    else if (response.status !== 400)
                      throw new Error(`term: ${response.status} ${JSON.stringify(response.body)}`);
                  });
                return;
            }
          };

          const followers = {
            anonymous: new FeedClient(t, undefined, { per_page: 7 }),
            editor: new FeedClient(t, t.auth.editor, { per_page: 7 }),
          };
          await Promise.all(Object.values(followers).map((client) => client.sync()));
          let writing = true;
          const following = Object.values(followers).map(async (client) => {
            while (writing) await client.sync();
          });
          try {
            await Promise.all(
              writers.map(async (list) => {
                for (const w of list) await apply(w);
              }),
            );
          } finally {
            writing = false;
            await Promise.all(following);
          }
          for (const [who, client] of Object.entries(followers)) {
            await client.sync();
            const auth = who === 'editor' ? t.auth.editor : undefined;
            expect({ who, records: followedRecords(client) }).toEqual({
              who,
              records: await listedRecords(t, auth),
            });
          }
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(
      `changes under writers (${t.engine}): ${writes} writes in ${RUNS} runs, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 300_000);
});
