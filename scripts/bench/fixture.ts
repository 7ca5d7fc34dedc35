/*
 * A small, deterministic dataset written through the public API: the
 * fallback when `npm run seed` is not available, and the data of the CI
 * smoke test. Categories and tags in both languages, venues (some with
 * coordinates), organizers, and events spread over four years around today
 * (about 90 % published, some all-day, some password-protected, some hidden,
 * about half with an English translation).
 */

/** Sends one API request (path relative to {api}); answers status and parsed body. */
export type ApiSend = (
  method: 'POST' | 'PUT',
  path: string,
  body: Record<string, unknown>,
) => Promise<{ status: number; body: unknown }>;

export interface FixtureOptions {
  events: number;
  /** Deterministic choices. */
  seed?: number;
  /** Reference "today" (unix seconds); events spread two years either side. */
  now?: number;
  /** Called now and then with the number of events written. */
  progress?: (written: number) => void;
}

const WORDS = [
  'jazz', 'markt', 'festival', 'concert', 'lezing', 'workshop', 'theater', 'dans', 'film',
  'expositie', 'wandeling', 'proeverij', 'kinderen', 'zomer', 'winter', 'haven', 'museum',
  'orgel', 'koor', 'poezie', 'fiets', 'natuur', 'boeken', 'kunst', 'muziek', 'nacht',
];
const CATEGORIES = ['Muziek', 'Theater', 'Sport', 'Familie', 'Cultuur', 'Natuur'];
const TAGS = ['gratis', 'buiten', 'binnen', 'avond', 'weekend', 'kinderen', 'toegankelijk', 'live'];
const CITIES = ['Amsterdam', 'Utrecht', 'Gent', 'Leiden', 'Zwolle'];
const ZONES = ['Europe/Amsterdam', 'Europe/Brussels', 'UTC', 'America/New_York'];

/** Mulberry32: small, fast, deterministic. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function wire(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

async function created(send: ApiSend, path: string, body: Record<string, unknown>): Promise<number> {
  const response = await send('POST', path, body);
  if (response.status !== 201) {
    throw new Error(`fixture: POST ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return (response.body as { id: number }).id;
}

async function translate(send: ApiSend, path: string, body: Record<string, unknown>): Promise<void> {
  const response = await send('POST', `${path}?language=en`, body);
  if (response.status !== 200) {
    throw new Error(`fixture: POST ${path} (en) answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
}

/** Writes the dataset; `send` must carry an editor's (or administrator's) token. */
export async function writeFixture(send: ApiSend, options: FixtureOptions): Promise<void> {
  const rnd = random(options.seed ?? 42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  const now = options.now ?? Math.floor(Date.now() / 1000);

  const categoryIds: number[] = [];
  for (const name of CATEGORIES) {
    const id = await created(send, '/categories', { name, description: `Alles over ${name.toLowerCase()}` });
    await translate(send, `/categories/${id}`, { name: `${name} (en)` });
    categoryIds.push(id);
  }
  const tagIds: number[] = [];
  for (const name of TAGS) tagIds.push(await created(send, '/tags', { name }));

  const venueIds: number[] = [];
  for (let i = 0; i < 6; i++) {
    const located = i % 3 !== 2;
    const id = await created(send, '/venues', {
      venue: `Zaal ${pick(WORDS)} ${i + 1}`,
      address: `Straat ${i + 1}`,
      city: CITIES[i % CITIES.length],
      country: 'Nederland',
      zip: `10${10 + i} AB`,
      phone: i % 2 === 0 ? `+31 20 555 01${i}` : '',
      ...(located ? { geo_lat: 52 + rnd(), geo_lng: 4 + rnd() } : {}),
    });
    if (i % 2 === 0) await translate(send, `/venues/${id}`, { venue: `Hall ${i + 1}` });
    venueIds.push(id);
  }
  const organizerIds: number[] = [];
  for (let i = 0; i < 5; i++) {
    organizerIds.push(
      await created(send, '/organizers', {
        organizer: `Stichting ${pick(WORDS)} ${i + 1}`,
        email: `info${i + 1}@example.org`,
        website: i % 2 === 0 ? `https://example.org/${i + 1}` : '',
      }),
    );
  }

  const span = 2 * 365 * 86400;
  for (let i = 0; i < options.events; i++) {
    const start = now - span + Math.floor(rnd() * 2 * span);
    const allDay = rnd() < 0.1;
    const title = `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} ${i + 1}`;
    const cats = [pick(categoryIds), pick(categoryIds)];
    const tags = [pick(tagIds), pick(tagIds), pick(tagIds)];
    const body: Record<string, unknown> = {
      title: title[0].toUpperCase() + title.slice(1),
      description: `<p>${Array.from({ length: 12 }, () => pick(WORDS)).join(' ')}</p>`,
      excerpt: rnd() < 0.5 ? `${pick(WORDS)} en ${pick(WORDS)}` : '',
      start_date: wire(start),
      end_date: wire(start + 3600 * (1 + Math.floor(rnd() * 4))),
      timezone: pick(ZONES),
      all_day: allDay,
      status: rnd() < 0.9 ? 'publish' : pick(['draft', 'pending', 'private']),
      cost: rnd() < 0.3 ? '0' : rnd() < 0.5 ? ['€10', '€25'] : '12,50',
      categories: [...new Set(cats)],
      tags: [...new Set(tags)],
      venue: rnd() < 0.85 ? pick(venueIds) : 0,
      organizer: rnd() < 0.8 ? [pick(organizerIds)] : [],
      featured: rnd() < 0.1,
      hide_from_listings: rnd() < 0.03,
      ...(rnd() < 0.05 ? { password: 'geheim' } : {}),
      ...(rnd() < 0.2 ? { image: `https://images.example.org/${i + 1}.jpg` } : {}),
    };
    const id = await created(send, '/events', body);
    if (rnd() < 0.5) {
      await translate(send, `/events/${id}`, {
        title: `${pick(WORDS)} ${pick(WORDS)} event ${i + 1}`,
        description: `<p>${Array.from({ length: 8 }, () => pick(WORDS)).join(' ')}</p>`,
      });
    }
    if ((i + 1) % 250 === 0) options.progress?.(i + 1);
  }
}
