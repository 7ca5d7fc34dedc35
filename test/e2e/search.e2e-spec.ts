import { dayAt, eventRequests } from './helpers/events';
import { Calendar, rawBody, readCalendar } from './helpers/ical';
import { API, createTestApp, errorBody, TestApp, UserName } from './helpers/test-app';

/*
 * `search` on events over the engines' full-text indexes (docs/api.md §5.1):
 * every word must begin a word of the title, excerpt or description the event
 * shows (its texts in the request's language, else the other one's), case
 * and accents ignored, words under 3 characters left out.
 */

type Body = Record<string, unknown>;

let t: TestApp;
let api: ReturnType<typeof eventRequests>;

beforeAll(async () => {
  t = await createTestApp();
  api = eventRequests(t);
});
afterAll(() => t?.close());
beforeEach(() => t.reset());

/** Creates events in order (IDs 1, 2, …), a day apart, as the author unless told. */
async function seed(events: Body[], user: UserName = 'author'): Promise<void> {
  for (const [i, event] of events.entries()) {
    await api
      .create({ start_date: dayAt(i + 1), end_date: dayAt(i + 1), ...event }, user)
      .expect(201);
  }
}

/** IDs listed for a query and the X-Total header. */
async function found(query: string, user?: UserName): Promise<{ ids: number[]; total: number }> {
  const res = await api.get(`/events?${query}`, user).expect(200);
  expect(res.body.total).toBe(Number(res.headers['x-total']));
  return { ids: res.body.events.map((e: { id: number }) => e.id), total: res.body.total };
}

const search = async (words: string, extra = '', user?: UserName) =>
  (await found(`search=${encodeURIComponent(words)}${extra}`, user)).ids;

describe('matching', () => {
  beforeEach(() =>
    seed([
      { title: 'Jazzavond in het park', excerpt: 'Swingende muziek' },
      { title: 'Avondwandeling langs de rivier', description: '<p>Met gids, over poëzie</p>' },
      { title: 'Rock night with the band', language: 'en' },
      { title: 'Zomer-avond', description: 'Over THIS and about that' },
      { title: 'Orgel_concert 2026' },
    ]),
  );

  it('finds each word at the start of a word, not inside one', async () => {
    expect(await search('avond')).toEqual([2, 4]);
    expect(await search('vond')).toEqual([]);
    expect(await search('jazzavond')).toEqual([1]);
    expect(await search('jazz')).toEqual([1]);
    expect(await search('wandeling')).toEqual([]);
  });

  it('needs every word, from any of the texts the event shows', async () => {
    expect(await search('jazz swingende')).toEqual([1]);
    expect(await search('AVOND rivier gids')).toEqual([2]);
    expect(await search('jazz rivier')).toEqual([]);
    expect(await found('search=avond%20rivier')).toEqual({ ids: [2], total: 1 });
  });

  it('ignores case and accents', async () => {
    expect(await search('POËZIE')).toEqual([2]);
    expect(await search('poezie')).toEqual([2]);
    expect(await search('ROCK')).toEqual([3]);
  });

  it("leaves out InnoDB's stop words, as words under 3 characters", async () => {
    expect(await search('with the band')).toEqual([3]);
    expect(await search('this about')).toEqual([1, 2, 3, 4, 5]);
    expect(await search('about rivier')).toEqual([2]);
    // A prefix of a stop word is a word like any other.
    expect(await search('thi')).toEqual([4]);
  });

  it('cuts the search at anything but letters, digits and _; leaves out words under 3 characters', async () => {
    // "Zomer-avond": the hyphen separates two words in the text as in the search.
    expect(await search('zomer-avond')).toEqual([4]);
    expect(await search('"avond" (rivier)')).toEqual([2]);
    expect(await search('orgel_concert 2026')).toEqual([5]);
    expect(await search('concert')).toEqual([]);
    // Too short to be indexed: left out, alone or beside others.
    expect(await search('de')).toEqual([1, 2, 3, 4, 5]);
    expect(await search('avond de a')).toEqual([2, 4]);
    expect(await search('%_')).toEqual([1, 2, 3, 4, 5]);
    // Combining marks alone are no word (InnoDB would match every row); with a letter they are its accent.
    expect(await search('\u0301\u0301\u0301')).toEqual([1, 2, 3, 4, 5]);
    expect(await search('poe\u0308zie')).toEqual([2]);
    // Operators of the engines' query languages are plain characters.
    expect(await search('+avond -rivier*')).toEqual([2]);
    expect(await search('avond OR jazz')).toEqual([]);
  });
});

describe('languages', () => {
  beforeEach(async () => {
    await seed([{ title: 'Markt op het plein' }, { title: 'Market hall', language: 'en' }]);
    await api.update(1, { title: 'Market on the square' }, 'author', '?language=en').expect(200);
  });

  it('searches the texts the event shows: its own language, else the other', async () => {
    expect(await search('markt')).toEqual([1]);
    // Event 2 has English texts only: they are what it shows in Dutch too.
    expect(await search('market')).toEqual([2]);
    expect(await search('market', '&language=en')).toEqual([1, 2]);
    expect(await search('markt', '&language=en')).toEqual([]);
    const res = await api.get('/events?search=square').set('Accept-Language', 'en').expect(200);
    expect(res.body.events.map((e: { id: number }) => e.id)).toEqual([1]);
  });
});

describe('visibility and filters', () => {
  it('never finds what the caller may not see', async () => {
    await seed([{ title: 'Geheime repetitie', status: 'draft' }, { title: 'Open repetitie' }]);
    expect(await search('repetitie')).toEqual([2]);
    expect(await search('geheime')).toEqual([]);
    expect(await search('repetitie', '', 'subscriber')).toEqual([2]);
    expect(await search('repetitie', '', 'author')).toEqual([1, 2]);
    expect(await search('geheime', '', 'otherAuthor')).toEqual([]);
    expect(await search('geheime', '', 'editor')).toEqual([1]);
  });

  it('combines with the window, featured, categories, venue and include', async () => {
    const venue = await api.createVenue({ venue: 'Grote Kerk' }).expect(201);
    await seed([
      { title: 'Orgelconcert', featured: true, categories: ['Muziek'] },
      { title: 'Orgelconcert', venue: venue.body.id },
      { title: 'Orgelconcert', start_date: dayAt(900), end_date: dayAt(900) },
      { title: 'Koorconcert', featured: true, categories: ['Muziek'] },
    ]);
    expect(await found('search=orgelconcert')).toEqual({ ids: [1, 2], total: 2 });
    expect(await search('orgelconcert', `&end_date=${dayAt(1000).slice(0, 10)}`)).toEqual([
      1, 2, 3,
    ]);
    expect(await search('orgelconcert', '&featured=true')).toEqual([1]);
    expect(await search('orgelconcert', '&categories=muziek')).toEqual([1]);
    expect(await search('concert', '&categories=muziek')).toEqual([]);
    expect(await search('orgelconcert', `&venue=${venue.body.id}`)).toEqual([2]);
    expect(await search('orgelconcert', '&include=3,4')).toEqual([3]);
  });
});

describe('orderby=relevance', () => {
  beforeEach(() =>
    seed([
      { title: 'Jazz noot noot noot' },
      { title: 'Jazz jazz jazz jazz' },
      { title: 'Jazz jazz noot noot' },
      { title: 'Jazz noot noot noot' },
      { title: 'Noot noot noot noot' },
    ]),
  );

  it('puts the best matches first, then by start; pages in that order', async () => {
    expect(await search('jazz')).toEqual([1, 2, 3, 4]);
    expect(await search('jazz', '&orderby=relevance')).toEqual([2, 3, 1, 4]);
    expect(await search('jazz', '&orderby=relevance&per_page=2&page=2')).toEqual([1, 4]);
    expect(await search('jazz', '&orderby=start_date')).toEqual([1, 2, 3, 4]);
  });

  it('orders by start without search words; other values are 400', async () => {
    expect((await found('orderby=relevance')).ids).toEqual([1, 2, 3, 4, 5]);
    expect(await search('no', '&orderby=relevance')).toEqual([1, 2, 3, 4, 5]);
    const res = await api.get('/events?search=jazz&orderby=title').expect(400);
    expect(res.body).toEqual(errorBody('rest_invalid_param', 400, { orderby: expect.any(String) }));
  });
});

describe('totals and pages', () => {
  beforeEach(() =>
    seed([
      { title: 'Avond een' },
      { title: 'Avond twee' },
      { title: 'Ochtend' },
      { title: 'Avond drie', status: 'draft' },
      { title: 'Evening four', language: 'en' },
      { title: 'Avond vijf' },
      { title: 'Avond zes' },
      { title: 'Avond zeven' },
    ]),
  );

  /** IDs, X-Total and X-TotalPages of a page. */
  async function page(query: string, user?: UserName) {
    const res = await api.get(`/events?${query}`, user).expect(200);
    expect(res.headers['x-total']).toBe(String(res.body.total));
    return {
      ids: res.body.events.map((e: { id: number }) => e.id),
      total: res.body.total,
      pages: Number(res.headers['x-totalpages']),
    };
  }

  it('counts every match on any page, also when a total is asked for the first time', async () => {
    // The first ask of each query comes with its total; the second of avond reads the kept one.
    expect(await page('search=avond&per_page=2&page=3')).toEqual({ ids: [8], total: 5, pages: 3 });
    expect(await page('search=avond&per_page=2&page=2')).toEqual({
      ids: [6, 7],
      total: 5,
      pages: 3,
    });
    expect(await page('search=avond&per_page=2&page=2', 'author')).toEqual({
      ids: [4, 6],
      total: 6,
      pages: 3,
    });
    expect(await page('search=avond&per_page=2&orderby=relevance&page=3&featured=false')).toEqual({
      ids: [8],
      total: 5,
      pages: 3,
    });
    expect(await page('search=evening&per_page=3&page=1')).toEqual({
      ids: [5],
      total: 1,
      pages: 1,
    });
  });

  it('answers a page past the last 404, whether the total was known or not', async () => {
    const past = await api.get('/events?search=avond&per_page=2&page=4').expect(404);
    expect(past.body).toEqual(errorBody('event-archive-page-not-found', 404));
    expect(await page('search=avond&per_page=2&page=1')).toEqual({
      ids: [1, 2],
      total: 5,
      pages: 3,
    });
    await api.get('/events?search=avond&per_page=2&page=4').expect(404);
    const none = await api.get('/events?search=middag&page=2').expect(404);
    expect(none.body).toEqual(errorBody('event-archive-page-not-found', 404));
    expect(await page('search=middag')).toEqual({ ids: [], total: 0, pages: 0 });
  });

  it('counts the new total after a write, on a page past the first', async () => {
    expect(await page('search=avond&per_page=2&page=3')).toEqual({ ids: [8], total: 5, pages: 3 });
    await api.update(3, { title: 'Ochtend en avond' }).expect(200);
    expect(await page('search=avond&per_page=2&page=3')).toEqual({
      ids: [7, 8],
      total: 6,
      pages: 3,
    });
    await api.remove('/events/8').expect(200);
    expect(await page('search=avond&per_page=2&page=3')).toEqual({ ids: [7], total: 5, pages: 3 });
  });
});

describe('relevance in the shown language', () => {
  beforeEach(async () => {
    await seed([{ title: 'Jazz noot noot noot' }, { title: 'Jazz jazz noot noot' }]);
    await api.update(1, { title: 'Jazz jazz jazz jazz' }, 'author', '?language=en').expect(200);
    await seed([{ title: 'Jazz jazz jazz noot', language: 'en' }]);
  });

  it('scores the texts each event shows, not its other translation', async () => {
    // Dutch: event 1 shows "Jazz noot noot noot", event 3 its English texts (it has no Dutch).
    expect(await search('jazz', '&orderby=relevance')).toEqual([3, 2, 1]);
    // English: event 2 has none, so it shows its Dutch texts.
    expect(await search('jazz', '&orderby=relevance&language=en')).toEqual([1, 3, 2]);
    expect(await found('search=jazz&orderby=relevance&per_page=1&page=2')).toEqual({
      ids: [2],
      total: 3,
    });
  });
});

describe('writes', () => {
  it('every write is reflected in the next search', async () => {
    await seed([{ title: 'Eerste Zeldzaamwoord' }, { title: 'Tweede' }]);
    expect(await search('zeldzaamwoord')).toEqual([1]);
    await api.update(1, { title: 'Eerste Anderwoord' }).expect(200);
    expect(await search('zeldzaamwoord')).toEqual([]);
    expect(await search('anderwoord')).toEqual([1]);
    await api.update(2, { description: 'Nu ook met anderwoord' }).expect(200);
    expect(await search('anderwoord')).toEqual([1, 2]);
    await api.update(1, { title: 'First otherword' }, 'author', '?language=en').expect(200);
    expect(await search('otherword', '&language=en')).toEqual([1]);
    expect(await search('anderwoord', '&language=en')).toEqual([2]);
    await api.remove('/events/1').expect(200);
    expect(await search('anderwoord')).toEqual([2]);
    expect(await search('anderwoord', '&status=trash', 'editor')).toEqual([1]);
    await api.update(1, { status: 'publish' }, 'editor').expect(200);
    expect(await search('anderwoord')).toEqual([1, 2]);
    await api.remove('/events/1?force=true', 'editor').expect(200);
    expect(await search('anderwoord', '&status=trash,publish', 'editor')).toEqual([2]);
    await api
      .create({ title: 'Derde anderwoord', start_date: dayAt(3), end_date: dayAt(3) })
      .expect(201);
    expect(await search('anderwoord')).toEqual([2, 3]);
    await expectIndexIntact();
  });

  it('finds the occurrences of a series, and follows series edits', async () => {
    await seed([
      { title: 'Wekelijkse yogales', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] },
      { title: 'Pianoles' },
    ]);
    const first = await found('search=yogales');
    expect(first.total).toBe(3);
    await api.update(1, { title: 'Wekelijkse tai-chi' }).expect(200);
    expect(await found('search=yogales')).toEqual({ ids: [], total: 0 });
    expect((await found('search=chi%20wekelijkse')).total).toBe(3);
    await expectIndexIntact();
  });
});

describe('the iCalendar feed', () => {
  it('holds exactly the events the list finds', async () => {
    await seed([{ title: 'Avondmarkt' }, { title: 'Jazzavond' }, { title: 'Avond van de film' }]);
    const res = await t
      .http()
      .get(`${API}/events.ics?search=avond`)
      .buffer(true)
      .parse(rawBody)
      .expect(200);
    const cal: Calendar = readCalendar(res);
    expect(cal.events.map((e) => e.SUMMARY)).toEqual(['Avondmarkt', 'Avond van de film']);
    expect(await search('avond')).toEqual([1, 3]);
  });
});

/** SQLite: the FTS5 index holds exactly what its content table holds. */
async function expectIndexIntact(): Promise<void> {
  if (t.engine !== 'sqlite') return;
  await expect(
    t.dataSource.query(
      "INSERT INTO ft_event_translations_text(ft_event_translations_text, rank) VALUES ('integrity-check', 1)",
    ),
  ).resolves.toBeDefined();
}
