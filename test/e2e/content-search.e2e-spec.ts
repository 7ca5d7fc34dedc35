import { eventRequests } from './helpers/events';
import { API, createTestApp, errorBody, TestApp, UserName } from './helpers/test-app';

/*
 * `search` on venues and organizers over the engines' full-text indexes
 * (docs/api.md §5.2): every word must begin a word of one and the same
 * field (the texts the record shows, or one of the kind's columns), case and
 * accents ignored, words under 3 characters and stop words left out.
 */

type Body = Record<string, unknown>;
type Kind = 'venues' | 'organizers';

let t: TestApp;
let api: ReturnType<typeof eventRequests>;

beforeAll(async () => {
  t = await createTestApp();
  api = eventRequests(t);
});
afterAll(() => t?.close());
beforeEach(() => t.reset());

const NAME: Record<Kind, 'venue' | 'organizer'> = { venues: 'venue', organizers: 'organizer' };

/** Creates records in order (IDs 1, 2, …), each published a day after the one before. */
async function seed(kind: Kind, records: Body[], user: UserName = 'author'): Promise<void> {
  for (const [i, record] of records.entries()) {
    const date = `2025-01-${String(i + 1).padStart(2, '0')} 12:00:00`;
    await t
      .http()
      .post(`${API}/${kind}`)
      .set('Authorization', t.auth[user])
      .send({ date, ...record })
      .expect(201);
  }
}

/** IDs listed for a query, checking X-Total against the body. */
async function found(kind: Kind, query: string, user?: UserName) {
  const res = await api.get(`/${kind}?${query}`, user).expect(200);
  expect(res.body.total).toBe(Number(res.headers['x-total']));
  const ids = (res.body[kind] as Array<{ id: number }>).map((r) => r.id);
  return { ids, total: res.body.total as number };
}

const search = async (kind: Kind, words: string, extra = '', user?: UserName) =>
  (await found(kind, `search=${encodeURIComponent(words)}${extra}`, user)).ids;

describe.each<Kind>(['venues', 'organizers'])('%s', (kind) => {
  const name = NAME[kind];

  it('finds each word at the start of a word of one field, accents and case ignored', async () => {
    await seed(kind, [
      { [name]: 'Jazzcafé Alto', excerpt: 'Avondconcerten in het centrum' },
      { [name]: 'Poëziehuis', description: '<p>Lezingen op de avond</p>' },
      { [name]: 'Het Avondrood', phone: '020 555 1234' },
    ]);
    // Newest first.
    expect(await search(kind, 'avond')).toEqual([3, 2, 1]);
    expect(await search(kind, 'AVONDROOD')).toEqual([3]);
    expect(await search(kind, 'vond')).toEqual([]);
    expect(await search(kind, 'jazzcafe')).toEqual([1]);
    expect(await search(kind, 'cafe')).toEqual([]);
    expect(await search(kind, 'poezie')).toEqual([2]);
    expect(await search(kind, 'lezingen avond')).toEqual([2]);
    expect(await search(kind, '555 1234')).toEqual([3]);
    // Every word in one field: name and excerpt together are no match.
    expect(await search(kind, 'alto avondconcerten')).toEqual([]);
    expect(await search(kind, 'jazzcafé alto')).toEqual([1]);
  });

  it('searches the texts the record shows: its own language, else the other', async () => {
    await seed(kind, [{ [name]: 'Markthal' }, { [name]: 'Market hall', language: 'en' }]);
    await t
      .http()
      .patch(`${API}/${kind}/1?language=en`)
      .set('Authorization', t.auth.author)
      .send({ [name]: 'Covered market' })
      .expect(200);
    expect(await search(kind, 'markthal')).toEqual([1]);
    // Record 2 has English texts only: they are what it shows in Dutch too.
    expect(await search(kind, 'market')).toEqual([2]);
    expect(await search(kind, 'market', '&language=en')).toEqual([2, 1]);
    expect(await search(kind, 'covered', '&language=en')).toEqual([1]);
    expect(await search(kind, 'markthal', '&language=en')).toEqual([]);
  });

  it('never finds what the caller may not see', async () => {
    await seed(kind, [{ [name]: 'Geheime zaal', status: 'draft' }, { [name]: 'Open zaal' }]);
    expect(await search(kind, 'zaal')).toEqual([2]);
    expect(await search(kind, 'geheime')).toEqual([]);
    expect(await search(kind, 'geheime', '', 'otherAuthor')).toEqual([]);
    expect(await search(kind, 'zaal', '', 'author')).toEqual([2, 1]);
    expect(await search(kind, 'geheime', '', 'editor')).toEqual([1]);
  });

  it('orders by relevance when asked, then by date; pages in that order', async () => {
    await seed(kind, [
      { [name]: 'Jazz noot', description: 'noot noot noot' },
      { [name]: 'Jazz', description: 'jazz jazz jazz jazz' },
      { [name]: 'Noot', description: 'jazz jazz noot noot' },
      { [name]: 'Jazz noot', description: 'noot noot noot' },
      { [name]: 'Noot', description: 'noot noot noot noot' },
    ]);
    expect(await search(kind, 'jazz')).toEqual([4, 3, 2, 1]);
    const ranked = await search(kind, 'jazz', '&orderby=relevance');
    expect(ranked[0]).toBe(2);
    expect([...ranked].sort()).toEqual([1, 2, 3, 4]);
    // Equal matches keep the date order among themselves.
    expect(ranked.indexOf(4)).toBeLessThan(ranked.indexOf(1));
    const paged = await found(kind, 'search=jazz&orderby=relevance&per_page=2&page=2');
    expect(paged).toEqual({ ids: ranked.slice(2), total: 4 });
    expect(await search(kind, 'jazz', '&orderby=date')).toEqual([4, 3, 2, 1]);
    // Without search words, by date; other values are 400.
    expect(await search(kind, 'ja', '&orderby=relevance')).toEqual([5, 4, 3, 2, 1]);
    const res = await api.get(`/${kind}?search=jazz&orderby=name`).expect(400);
    expect(res.body).toEqual(errorBody('rest_invalid_param', 400, { orderby: expect.any(String) }));
  });

  it('reflects every write in the next search', async () => {
    await seed(kind, [{ [name]: 'Zeldzaamwoord' }, { [name]: 'Tweede' }]);
    expect(await search(kind, 'zeldzaamwoord')).toEqual([1]);
    await t
      .http()
      .patch(`${API}/${kind}/1`)
      .set('Authorization', t.auth.author)
      .send({ [name]: 'Anderwoord', phone: '0800 1234' })
      .expect(200);
    expect(await search(kind, 'zeldzaamwoord')).toEqual([]);
    expect(await search(kind, 'anderwoord')).toEqual([1]);
    expect(await search(kind, '0800')).toEqual([1]);
    await api.remove(`/${kind}/1?force=true`, 'editor').expect(200);
    expect(await search(kind, 'anderwoord', '&status=publish,trash', 'editor')).toEqual([]);
    await expectIndexIntact(kind);
  });

  it('answers hostile input bounded: too long is 400, operators are plain characters', async () => {
    await seed(kind, [{ [name]: 'Kerk', excerpt: 'Avond in de kerk' }, { [name]: 'Zaal' }]);
    const long = await api.get(`/${kind}?search=${'a'.repeat(10_000)}`).expect(400);
    expect(long.body).toEqual(errorBody('rest_invalid_param', 400, { search: expect.any(String) }));
    expect(await search(kind, '"*"+-<>()~@')).toEqual([2, 1]);
    expect(await search(kind, '+kerk -avond*')).toEqual([1]);
    expect(await search(kind, 'kerk OR zaal')).toEqual([]);
    expect(await search(kind, '\u0301\u0301\u0301')).toEqual([2, 1]);
    // Many words (at most 20 are used): all must match.
    const many = Array.from({ length: 60 }, (_, i) => `kerk${i}`).join(' ');
    expect(await search(kind, many.slice(0, 200))).toEqual([]);
  });
});

/** SQLite: each FTS5 index holds exactly what its content table holds. */
async function expectIndexIntact(kind: Kind): Promise<void> {
  if (t.engine !== 'sqlite') return;
  const singular = kind === 'venues' ? 'venue' : 'organizer';
  for (const table of [`ft_${kind}_fields`, `ft_${singular}_translations_fields`]) {
    await expect(
      t.dataSource.query(`INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)`),
    ).resolves.toBeDefined();
  }
}
