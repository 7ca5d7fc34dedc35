import fc from 'fast-check';
import { FeedClient, followedRecords, listedRecords } from '../helpers/changes';
import { API, createTestApp, TestApp, UserName } from '../helpers/test-app';

/*
 * Convergence of the changes feed (contract §12), property-based: random
 * sequences of creates, updates, status changes, trashes, permanent deletes
 * and venue/organizer/term edits, some of them concurrent and with clients
 * polling in between. Afterwards a client that followed the feed holds
 * exactly the records, byte for byte, that full list reads show, for an
 * anonymous caller and for an editor.
 *
 * The client keeps embedded copies current the documented way (docs/sync.md):
 * the venue, organizers and terms inside an event are replaced by its own
 * entries of those kinds (terms re-sorted by name as records show them).
 *
 * The seed is fixed (override with FUZZ_SEED) and printed; fast-check prints
 * the shrunk counterexample.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);

type PostKind = 'venue' | 'organizer';
type TermCollection = 'categories' | 'tags';
const STATUSES = ['publish', 'draft', 'pending', 'private'] as const;
const ACTORS: UserName[] = ['editor', 'author', 'contributor'];
const CATEGORY_NAMES = ['Jazz', 'Rock', 'Pop'];
const TAG_NAMES = ['Live', 'Free', 'Kids', 'Outdoor'];

type Op =
  | {
      type: 'createEvent';
      actor: UserName;
      status?: string;
      venue: number | string | null;
      organizers: Array<number | string>;
      categories: string[];
      tags: string[];
      password: boolean;
    }
  | {
      type: 'updateEvent';
      pick: number;
      title?: string;
      status?: string;
      venue?: number | string | null;
      categories?: string[];
      password?: string;
    }
  | { type: 'createPost'; kind: PostKind; actor: UserName; status: string; name: string }
  | { type: 'updatePost'; kind: PostKind; pick: number; name?: string; status?: string }
  | { type: 'remove'; kind: 'event' | PostKind; pick: number; force: boolean }
  | { type: 'createTerm'; collection: TermCollection; name: string }
  | { type: 'renameTerm'; collection: TermCollection; pick: number; name: string }
  | { type: 'deleteTerm'; collection: TermCollection; pick: number }
  | { type: 'sync'; who: 'anonymous' | 'editor' }
  | { type: 'parallel'; ops: Op[] };

const pick = fc.nat({ max: 50 });
const status = fc.constantFrom(...STATUSES);
/** An existing venue/organizer (a pick), an inline one (a name), or none. */
const reference = fc.oneof(pick, fc.constantFrom('Hall A', 'Hall B', 'Club C'));
const name = fc.constantFrom('Alpha', 'beta', 'Gamma', 'Zeta', 'Échelle', 'omega');

const writeOp: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('createEvent' as const),
      actor: fc.constantFrom(...ACTORS),
      status: fc.option(status, { nil: undefined }),
      venue: fc.option(reference, { nil: null }),
      organizers: fc.array(reference, { maxLength: 2 }),
      categories: fc.subarray(CATEGORY_NAMES, { maxLength: 2 }),
      tags: fc.subarray(TAG_NAMES, { maxLength: 2 }),
      password: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        type: fc.constant('updateEvent' as const),
        pick,
        title: name,
        status,
        venue: fc.option(reference, { nil: null }),
        categories: fc.subarray(CATEGORY_NAMES, { maxLength: 2 }),
        password: fc.constantFrom('', 'secret'),
      },
      { requiredKeys: ['type', 'pick'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('createPost' as const),
      kind: fc.constantFrom<PostKind>('venue', 'organizer'),
      actor: fc.constantFrom(...ACTORS),
      status,
      name,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        type: fc.constant('updatePost' as const),
        kind: fc.constantFrom<PostKind>('venue', 'organizer'),
        pick,
        name,
        status,
      },
      { requiredKeys: ['type', 'kind', 'pick'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('remove' as const),
      kind: fc.constantFrom<'event' | PostKind>('event', 'venue', 'organizer'),
      pick,
      force: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('createTerm' as const),
      collection: fc.constantFrom<TermCollection>('categories', 'tags'),
      name,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('renameTerm' as const),
      collection: fc.constantFrom<TermCollection>('categories', 'tags'),
      pick,
      name,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('deleteTerm' as const),
      collection: fc.constantFrom<TermCollection>('categories', 'tags'),
      pick,
    }),
  },
);
const syncOp: fc.Arbitrary<Op> = fc.record({
  type: fc.constant('sync' as const),
  who: fc.constantFrom<'anonymous' | 'editor'>('anonymous', 'editor'),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: writeOp },
  { weight: 2, arbitrary: syncOp },
  {
    weight: 2,
    arbitrary: fc
      .tuple(writeOp, writeOp, fc.option(syncOp, { nil: undefined }))
      .map(([a, b, s]): Op => ({ type: 'parallel', ops: s ? [a, s, b] : [a, b] })),
  },
);

describe('changes feed convergence (property)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t?.close());

  it('a client following the feed ends with exactly what the lists show, anonymous and editor', async () => {
    const started = Date.now();
    let requests = 0;
    console.log(`changes convergence (${t.engine}): seed ${SEED}, ${RUNS} runs`);

    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 25 }), async (ops) => {
        await t.reset();
        const ids: Record<string, number[]> = {
          event: [],
          venue: [],
          organizer: [],
          categories: [],
          tags: [],
        };
        const choose = (kind: string, n: number) =>
          ids[kind][n % Math.max(1, ids[kind].length)] ?? 1;
        const clients = { anonymous: new FeedClient(t), editor: new FeedClient(t, t.auth.editor) };

        const send = async (
          method: 'post' | 'delete',
          path: string,
          body: object,
          user: UserName,
        ) => {
          requests += 1;
          const request = t.http()[method](`${API}${path}`).set('Authorization', t.auth[user]);
          const response = await (method === 'post' ? request.send(body) : request);
          if (response.status >= 500)
            throw new Error(
              `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`,
            );
          return response;
        };
        const remember = (kind: string, response: { status: number; body: { id?: number } }) => {
          if (response.status === 201 && response.body.id) ids[kind].push(response.body.id);
        };
        const ref = (kind: PostKind, value: number | string) =>
          typeof value === 'number'
            ? choose(kind, value)
            : { [kind]: value, ...(kind === 'venue' ? { city: 'Utrecht' } : {}) };

        const run = async (o: Op): Promise<void> => {
          switch (o.type) {
            case 'createEvent': {
              const response = await send(
                'post',
                '/events',
                {
                  title: `Event ${ids.event.length}`,
                  start_date: '2030-05-01 20:00:00',
                  end_date: '2030-05-01 22:00:00',
                  ...(o.status ? { status: o.status } : {}),
                  ...(o.venue !== null ? { venue: ref('venue', o.venue) } : {}),
                  organizer: o.organizers.map((value) => ref('organizer', value)),
                  categories: o.categories,
                  tags: o.tags,
                  ...(o.password ? { password: 'secret' } : {}),
                },
                o.actor,
              );
              remember('event', response);
              return;
            }
            case 'updateEvent': {
              const body: Record<string, unknown> = {};
              if (o.title !== undefined) body.title = o.title;
              if (o.status !== undefined) body.status = o.status;
              if (o.venue !== undefined) body.venue = o.venue === null ? 0 : ref('venue', o.venue);
              if (o.categories !== undefined) body.categories = o.categories;
              if (o.password !== undefined) body.password = o.password;
              await send('post', `/events/${choose('event', o.pick)}`, body, 'editor');
              return;
            }
            case 'createPost':
              remember(
                o.kind,
                await send('post', `/${o.kind}s`, { [o.kind]: o.name, status: o.status }, o.actor),
              );
              return;
            case 'updatePost': {
              const body: Record<string, unknown> = {};
              if (o.name !== undefined) body[o.kind] = o.name;
              if (o.status !== undefined) body.status = o.status;
              await send('post', `/${o.kind}s/${choose(o.kind, o.pick)}`, body, 'editor');
              return;
            }
            case 'remove':
              await send(
                'delete',
                `/${o.kind}s/${choose(o.kind, o.pick)}${o.force ? '?force=true' : ''}`,
                {},
                'editor',
              );
              return;
            case 'createTerm':
              remember(
                o.collection,
                await send('post', `/${o.collection}`, { name: o.name }, 'editor'),
              );
              return;
            case 'renameTerm':
              await send(
                'post',
                `/${o.collection}/${choose(o.collection, o.pick)}`,
                { name: o.name },
                'editor',
              );
              return;
            case 'deleteTerm':
              await send(
                'delete',
                `/${o.collection}/${choose(o.collection, o.pick)}?force=true`,
                {},
                'editor',
              );
              return;
            case 'sync':
              await clients[o.who].sync();
              return;
            case 'parallel':
              await Promise.all(o.ops.map(run));
              return;
          }
        };

        for (const o of ops) await run(o);
        for (const [who, client] of Object.entries(clients)) {
          await client.sync();
          const auth = who === 'editor' ? t.auth.editor : undefined;
          expect({ who, records: asJson(followedRecords(client)) }).toEqual({
            who,
            records: asJson(await listedRecords(t, auth)),
          });
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(
      `changes convergence (${t.engine}): ${requests} writes, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    // 30 s on a quiet machine; a loaded two-core one took longer than the default 60 s.
  }, 180_000);
});

/** Each record as JSON: compared byte for byte, key order included. */
function asJson(records: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(records).map(([key, r]) => [key, JSON.stringify(r)]));
}
