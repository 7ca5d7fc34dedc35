import { API, createTestApp, TestApp } from './helpers/test-app';
import { feedPage } from './helpers/changes';

/*
 * The error paths of an import's bulk create (docs/api.md §19, "Writing"),
 * over HTTP uploads: venues and organizers a user trashed, one UID twice,
 * categories found in the other language or by slug and their bound, names
 * whose folded key is longer than the name, and a chunk with one refused
 * item (the others written, the refused one leaving nothing behind).
 */

type Json = Record<string, any>;

const AMS = 'Europe/Amsterdam';
const START = '2027-03-01';

/** A VEVENT on day `day` of March 2027, 19:00–21:00 in Amsterdam; `lines` after its dates. */
const vevent = (uid: string, day: number, lines: string[]) => {
  const date = `202703${String(day).padStart(2, '0')}`;
  return [
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20261128T100000Z',
    `DTSTART;TZID=${AMS}:${date}T190000`,
    `DTEND;TZID=${AMS}:${date}T210000`,
    ...lines,
    'END:VEVENT',
  ];
};
const feedOf = (vevents: string[][]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calendar test//bulk edges//EN',
    ...vevents.flat(),
    'END:VCALENDAR',
  ].join('\r\n');
/** CATEGORIES naming `n` distinct categories `<prefix>0` … */
const categoriesLine = (n: number, prefix: string) =>
  `CATEGORIES:${Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(',')}`;

describe('import bulk create: error paths', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SITE_TIMEZONE: AMS, IMPORTS_WORKER: 'false' });
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  const admin = () => ({ Authorization: t.auth.administrator });
  /** Uploads `calendar` to source `agenda` and answers its run's report. */
  const upload = async (calendar: string, query = ''): Promise<Json> => {
    const res = await t
      .http()
      .post(`${API}/imports?source=agenda${query}`)
      .set(admin())
      .set('Content-Type', 'text/calendar; charset=utf-8')
      .send(calendar);
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
    const { created, updated, unchanged, trashed, skipped, outcome } = res.body.runs[0];
    return { outcome, created, updated, unchanged, trashed, skipped };
  };
  const counts = (fields: Json) => ({
    outcome: 'imported',
    created: 0,
    updated: 0,
    unchanged: 0,
    trashed: 0,
    skipped: [],
    ...fields,
  });
  const get = async (path: string): Promise<Json> =>
    (await t.http().get(`${API}${path}`).set(admin()).expect(200)).body as Json;
  const post = async (path: string, body: object): Promise<Json> =>
    (await t.http().post(`${API}${path}`).set(admin()).send(body).expect(201)).body as Json;
  /** The source's keyed events of March 2027 by UID, every status (its series' occurrences carry no key). */
  const byUid = async (): Promise<Record<string, Json>> => {
    const { events } = await get(
      `/events?external_source=agenda&start_date=${START}&end_date=2027-03-31&status=publish,draft,private,trash&per_page=50`,
    );
    return Object.fromEntries(
      (events as Json[]).filter((e) => e.external_id !== null).map((e) => [e.external_id.id, e]),
    );
  };
  const all = async (kind: 'venues' | 'organizers' | 'categories'): Promise<Json[]> =>
    (
      await get(
        `/${kind}?per_page=100${kind === 'categories' ? '' : '&status=publish,draft,private,trash'}`,
      )
    )[kind] as Json[];
  const count = async (sql: string): Promise<number> =>
    Number((await t.dataSource.query(sql))[0].n);

  describe('venues and organizers found by key', () => {
    it('links no venue or organizer a user trashed, makes no second one with its key, and unlinks it on update', async () => {
      const place = [
        'LOCATION:Muziekcentrum\\, Utrecht',
        'ORGANIZER;CN=Koor:mailto:koor@example.org',
      ];
      const first = feedOf([vevent('one@feed', 1, ['SUMMARY:Repetitie', ...place])]);
      expect(await upload(first)).toEqual(counts({ created: 1 }));
      const { 'one@feed': one } = await byUid();
      const [venueId, organizerId] = [one.venue.id, one.organizer[0].id];
      await t.http().delete(`${API}/venues/${venueId}`).set(admin()).expect(200);
      await t.http().delete(`${API}/organizers/${organizerId}`).set(admin()).expect(200);

      // A new event naming the trashed records' keys in the same chunk as the changed one.
      const second = feedOf([
        vevent('one@feed', 1, ['SUMMARY:Repetitie (nieuw)', ...place]),
        vevent('two@feed', 2, ['SUMMARY:Concert', ...place]),
        vevent('three@feed', 3, [
          'SUMMARY:Lezing',
          'LOCATION:Bibliotheek',
          'ORGANIZER;CN=Bieb:mailto:bieb@example.org',
        ]),
      ]);
      expect(await upload(second)).toEqual(counts({ created: 2, updated: 1 }));
      const events = await byUid();
      // A broken writer links the trashed ones (venue: {id}), refuses the item (a trashed key is
      // 400 for API writes), or makes another venue with the same key (a unique violation, 5xx).
      expect(
        ['one@feed', 'two@feed'].map((uid) => [
          events[uid].title,
          events[uid].venue,
          events[uid].organizer,
        ]),
      ).toEqual([
        ['Repetitie (nieuw)', [], []],
        ['Concert', [], []],
      ]);
      expect([
        events['three@feed'].venue.venue,
        events['three@feed'].organizer[0].organizer,
      ]).toEqual(['Bibliotheek', 'Bieb']);
      // (Listed by name.)
      expect((await all('venues')).map((v) => [v.venue, v.status])).toEqual([
        ['Bibliotheek', 'publish'],
        ['Muziekcentrum, Utrecht', 'trash'],
      ]);
      expect((await all('organizers')).map((o) => [o.organizer, o.status])).toEqual([
        ['Bieb', 'publish'],
        ['Koor', 'trash'],
      ]);
      // Unchanged again: nothing written, the trashed records stay unlinked.
      expect(await upload(second)).toEqual(counts({ unchanged: 3 }));

      // Deleted for good, the key is free: the next write of the item makes a new venue with it.
      await t.http().delete(`${API}/venues/${venueId}?force=true`).set(admin()).expect(200);
      const third = second.replace('SUMMARY:Concert', 'SUMMARY:Concert!');
      expect(await upload(third)).toEqual(counts({ updated: 1, unchanged: 2 }));
      const concert = (await byUid())['two@feed'];
      expect([concert.venue.venue, concert.venue.external_id.source]).toEqual([
        'Muziekcentrum, Utrecht',
        'agenda',
      ]);
      expect(concert.venue.id).not.toBe(venueId);
    });
  });

  describe('one UID twice', () => {
    it('writes the newer VEVENT of one UID in one chunk and reports the other as duplicate', async () => {
      const feed = feedOf([
        vevent('dup@feed', 1, ['SUMMARY:Nieuw', 'SEQUENCE:2']),
        vevent('other@feed', 2, ['SUMMARY:Ander']),
        vevent('dup@feed', 3, ['SUMMARY:Oud', 'SEQUENCE:1']),
      ]);
      expect(await upload(feed)).toEqual(
        counts({
          created: 2,
          skipped: [
            {
              index: 3,
              uid: 'dup@feed',
              reason: 'duplicate',
              detail: 'another VEVENT with this UID and RECURRENCE-ID is newer',
            },
          ],
        }),
      );
      const events = await byUid();
      expect(Object.keys(events).sort()).toEqual(['dup@feed', 'other@feed']);
      expect([events['dup@feed'].title, events['dup@feed'].start_date]).toEqual([
        'Nieuw',
        '2027-03-01 19:00:00',
      ]);
      // The duplicate's UID is in the feed: trash_removed leaves its event alone.
      expect(await upload(feed)).toEqual(
        counts({
          unchanged: 2,
          skipped: [expect.objectContaining({ index: 3, reason: 'duplicate' })],
        }),
      );
    });

    it('keeps one UID once across chunks (the later of equal SEQUENCEs), and two UIDs that differ in case apart', async () => {
      // 130 items: two chunks of the writer; dup@feed at the start of the first and in the second.
      const vevents = Array.from({ length: 128 }, (_, i) =>
        vevent(`e${i}@feed`, 1 + (i % 28), [`SUMMARY:Event ${i}`]),
      );
      vevents.splice(1, 0, vevent('dup@feed', 1, ['SUMMARY:Eerst']));
      vevents.push(vevent('dup@feed', 2, ['SUMMARY:Later']));
      vevents.push(vevent('Case@feed', 4, ['SUMMARY:Hoofdletter']));
      vevents.push(vevent('case@feed', 5, ['SUMMARY:Kleine letter']));
      const report = await upload(feedOf(vevents));
      // A broken writer creating both (or a key compared case-insensitively) ends in a unique violation: 5xx.
      expect(report).toEqual(
        counts({
          created: 131,
          skipped: [expect.objectContaining({ index: 2, uid: 'dup@feed', reason: 'duplicate' })],
        }),
      );
      expect(await count("SELECT COUNT(*) AS n FROM events WHERE external_source = 'agenda'")).toBe(
        131,
      );
      const [dup] = await t.dataSource.query(
        "SELECT t.title FROM events e JOIN event_translations t ON t.event_id = e.id WHERE e.external_id = 'dup@feed'",
      );
      expect(dup.title).toBe('Later');
      const cased = await t.dataSource.query(
        "SELECT e.external_id AS uid, t.title FROM events e JOIN event_translations t ON t.event_id = e.id WHERE e.external_id IN ('Case@feed', 'case@feed') ORDER BY e.id",
      );
      expect(cased.map((row: Json) => [row.uid, row.title])).toEqual([
        ['Case@feed', 'Hoofdletter'],
        ['case@feed', 'Kleine letter'],
      ]);
    });
  });

  describe('categories', () => {
    it('links a category named in the other language or by its slug, and makes one category of names that slug alike', async () => {
      const music = await post('/categories?language=en', { name: 'Music' });
      const jazz = await post('/categories', { name: 'Jazz & Blues' });
      const feed = feedOf([
        vevent('a@feed', 1, ['SUMMARY:A', 'CATEGORIES:music,Jazz-Blues']),
        vevent('b@feed', 2, ['SUMMARY:B', 'CATEGORIES:Rock & Roll']),
        vevent('c@feed', 3, ['SUMMARY:C', 'CATEGORIES:rock roll,MUSIC']),
      ]);
      expect(await upload(feed)).toEqual(counts({ created: 3 }));
      // Broken: a lookup in the import's language only makes a Dutch "music" (slug music-2);
      // names looked up by name only make "Jazz-Blues" and "rock roll" (slugs jazz-blues-2, rock-roll-2).
      const categories = await all('categories');
      expect(categories.map((c) => [c.name, c.slug, c.count]).sort()).toEqual([
        ['Jazz & Blues', 'jazz-blues', 1],
        ['Music', 'music', 2],
        ['Rock & Roll', 'rock-roll', 2],
      ]);
      const events = await byUid();
      const ids = (uid: string) => events[uid].categories.map((c: Json) => c.id).sort();
      const rock = categories.find((c) => c.slug === 'rock-roll')?.id;
      expect([ids('a@feed'), ids('b@feed'), ids('c@feed')]).toEqual([
        [music.id, jazz.id].sort(),
        [rock],
        [music.id, rock].sort(),
      ]);
    });

    it("takes 100 categories on one item and skips one naming more (with the import's own) as rejected, not a 5xx", async () => {
      const extra = await post('/categories', { name: 'Stad' });
      const feed = feedOf([
        vevent('hundred@feed', 1, ['SUMMARY:Honderd', categoriesLine(100, 'H')]),
        vevent('more@feed', 2, ['SUMMARY:Meer', categoriesLine(101, 'M')]),
        vevent('plain@feed', 3, ['SUMMARY:Gewoon', 'CATEGORIES:H1']),
      ]);
      const rejected = (uid: string) => ({
        index: 0,
        uid,
        reason: 'rejected',
        detail: 'rest_invalid_param (categories)',
      });
      // Broken (the parser cut CATEGORIES to 100 silently): "more" is created with 100 of its 101.
      expect(await upload(feed)).toEqual(counts({ created: 2, skipped: [rejected('more@feed')] }));
      const events = await byUid();
      expect(Object.keys(events).sort()).toEqual(['hundred@feed', 'plain@feed']);
      expect(events['hundred@feed'].categories).toHaveLength(100);
      // The rejected item made no category.
      expect(await count("SELECT COUNT(*) AS n FROM term_translations WHERE name LIKE 'M%'")).toBe(
        0,
      );

      // With the import's category the first names 101: rejected too, the event it had left as it was.
      expect(await upload(feed, `&categories=${extra.id}`)).toEqual(
        counts({ updated: 1, skipped: [rejected('hundred@feed'), rejected('more@feed')] }),
      );
      const after = await byUid();
      expect(after['hundred@feed'].categories).toHaveLength(100);
      expect(after['plain@feed'].categories.map((c: Json) => c.name).sort()).toEqual([
        'H1',
        'Stad',
      ]);
    });

    it('writes names whose lower case is longer than 200 characters (MariaDB: no 5xx)', async () => {
      // "İ" lower-cases to two characters: the folded key of a 200-character name has 400.
      const long = 'İ'.repeat(200);
      const feed = feedOf([
        vevent('long@feed', 1, [
          'SUMMARY:Lang',
          `CATEGORIES:${long}`,
          `LOCATION:${long}`,
          `ORGANIZER;CN=${long}:mailto:lang@example.org`,
        ]),
      ]);
      expect(await upload(feed)).toEqual(counts({ created: 1 }));
      const { 'long@feed': event } = await byUid();
      expect([event.categories[0].name, event.venue.venue, event.organizer[0].organizer]).toEqual([
        long,
        long,
        long,
      ]);
      // Found again by name: unchanged, and the API finds the category by its name too.
      expect(await upload(feed)).toEqual(counts({ unchanged: 1 }));
      const again = await t
        .http()
        .post(`${API}/events`)
        .set(admin())
        .send({
          title: 'X',
          start_date: '2027-03-09 10:00:00',
          end_date: '2027-03-09 11:00:00',
          categories: [long],
        })
        .expect(201);
      expect(again.body.categories.map((c: Json) => c.id)).toEqual([event.categories[0].id]);
      for (const [path, body] of [
        ['/categories', { name: 'Ş'.repeat(100) + 'İ'.repeat(100) }],
        ['/venues', { venue: 'İ'.repeat(199) + 'x' }],
        ['/organizers', { organizer: 'İ'.repeat(200) }],
      ] as const)
        await post(path, body);
    });
  });

  describe('a chunk with one refused item', () => {
    it('writes the others and leaves nothing of the refused one: no event, text, link, venue, organizer or category', async () => {
      const feed = feedOf([
        vevent('ok1@feed', 1, ['SUMMARY:Markt 1', 'CATEGORIES:Markt', 'LOCATION:Plein']),
        vevent('ok2@feed', 2, ['SUMMARY:Markt 2', 'CATEGORIES:Markt', 'LOCATION:Plein']),
        vevent('bad@feed', 3, [
          'SUMMARY:Kapot',
          'CATEGORIES:Markt,Alleen hier',
          'LOCATION:Nergens anders',
          'ORGANIZER;CN=Kassa:mailto:not an address',
        ]),
        vevent('ok3@feed', 4, [
          'SUMMARY:Markt 3',
          'CATEGORIES:Markt',
          'ORGANIZER;CN=Ann:mailto:ann@example.org',
        ]),
        vevent('ok4@feed', 5, ['SUMMARY:Serie', 'RRULE:FREQ=DAILY;COUNT=3', 'CATEGORIES:Markt']),
      ]);
      const head = await feedPage(t, {}, t.auth.administrator);
      const rejected = {
        index: 0,
        uid: 'bad@feed',
        reason: 'rejected',
        detail: 'rest_invalid_param (organizer.email)',
      };
      expect(await upload(feed)).toEqual(counts({ created: 4, skipped: [rejected] }));
      const events = await byUid();
      expect(Object.keys(events).sort()).toEqual(['ok1@feed', 'ok2@feed', 'ok3@feed', 'ok4@feed']);

      // Broken (each item in a savepoint-less try/catch inside the chunk's transaction): the
      // refused item's venue, organizer or category stay; or an event without its texts.
      expect((await all('venues')).map((v) => v.venue)).toEqual(['Plein']);
      expect((await all('organizers')).map((o) => o.organizer)).toEqual(['Ann']);
      expect((await all('categories')).map((c) => [c.name, c.count])).toEqual([['Markt', 6]]);
      expect(
        await count(
          'SELECT COUNT(*) AS n FROM events e WHERE NOT EXISTS (SELECT 1 FROM event_translations t WHERE t.event_id = e.id)',
        ),
      ).toBe(0);
      // Four items and the series' two occurrences, each with its category link.
      expect(await count('SELECT COUNT(*) AS n FROM events')).toBe(6);
      expect(await count('SELECT COUNT(*) AS n FROM event_terms')).toBe(6);
      const { changes } = await feedPage(
        t,
        { since: head.next_cursor, per_page: 100 },
        t.auth.administrator,
      );
      expect(changes.map((c) => c.kind).sort()).toEqual([
        'category',
        'event',
        'event',
        'event',
        'event',
        'event',
        'event',
        'organizer',
        'venue',
      ]);

      // The refused item once right: created, the rest unchanged.
      const fixed = feed.replace('mailto:not an address', 'mailto:kassa@example.org');
      expect(await upload(fixed)).toEqual(counts({ created: 1, unchanged: 4 }));
      // Refused again as an update: the event keeps what it had.
      const broken = fixed
        .replace('SUMMARY:Kapot', 'SUMMARY:Weer kapot')
        .replace('mailto:kassa@example.org', 'mailto:kassa at example')
        .replace('SUMMARY:Markt 1', 'SUMMARY:Markt één');
      expect(await upload(broken)).toEqual(
        counts({ updated: 1, unchanged: 3, skipped: [rejected] }),
      );
      const after = await byUid();
      expect([
        after['bad@feed'].title,
        after['bad@feed'].organizer[0].email,
        after['ok1@feed'].title,
      ]).toEqual(['Kapot', 'kassa@example.org', 'Markt één']);
    });
  });
});
