import { SignJWT } from 'jose';
import { request } from 'node:http';

export const API = '/calendar/events/v1';

/** What the load picks from: IDs created through the API. */
export interface Dataset {
  events: number[];
  venues: number[];
  organizers: number[];
  categories: number[];
  tags: number[];
}

/** An administrator token (sub 1) signed with the service's AUTH_JWT_SECRET. */
export function adminToken(secret: string): Promise<string> {
  return new SignJWT({ role: 'administrator' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('1')
    .setIssuedAt()
    .setExpirationTime('12h')
    .sign(new TextEncoder().encode(secret));
}

function post(port: number, token: string, path: string, body: unknown): Promise<number> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `${API}${path}`,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
        },
        timeout: 30_000,
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () => {
          if (res.statusCode !== 201) {
            reject(new Error(`POST ${path} answered ${res.statusCode}: ${data.slice(0, 300)}`));
          } else resolve((JSON.parse(data) as { id: number }).id);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`POST ${path} timed out`)));
    req.on('error', reject);
    req.end(text);
  });
}

export const WORDS = ['jazz', 'markt', 'theater', 'lezing', 'festival', 'concert', 'expo', 'film'];
export const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];

/** "YYYY-MM-DD HH:MM:SS" (UTC) `days` from now at `hour`. */
export function wireDate(days: number, hour: number): string {
  const date = new Date(Date.now() + days * 86_400_000);
  date.setUTCHours(hour, 0, 0, 0);
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

export function eventBody(n: number, data: Omit<Dataset, 'events'>): Record<string, unknown> {
  const days = 1 + (n % 60);
  const hour = 9 + (n % 10);
  return {
    title: `Soak ${pick(WORDS)} ${n}`,
    description: `<p>${pick(WORDS)} ${pick(WORDS)} ${n}</p>`,
    status: 'publish',
    start_date: wireDate(days, hour),
    end_date: wireDate(days, hour + 2),
    venue: pick(data.venues),
    organizer: [pick(data.organizers)],
    categories: [pick(data.categories)],
    tags: [pick(data.tags), pick(data.tags)],
  };
}

/** A small dataset: 5 venues, 5 organizers, 6 categories, 10 tags, `events` upcoming events. */
export async function createDataset(port: number, token: string, events = 60): Promise<Dataset> {
  const many = (n: number, path: string, body: (i: number) => unknown) =>
    Promise.all(Array.from({ length: n }, (_, i) => post(port, token, path, body(i))));
  const run = Date.now().toString(36);
  const data = {
    venues: await many(5, '/venues', (i) => ({ venue: `Soak venue ${run} ${i}`, city: 'Utrecht' })),
    organizers: await many(5, '/organizers', (i) => ({ organizer: `Soak organizer ${run} ${i}` })),
    categories: await many(6, '/categories', (i) => ({ name: `Soak category ${run} ${i}` })),
    tags: await many(10, '/tags', (i) => ({ name: `Soak tag ${run} ${i}` })),
  };
  const ids: number[] = [];
  // Sequential: on SQLite writes queue anyway, and it keeps start-up load gentle.
  for (let n = 0; n < events; n++) ids.push(await post(port, token, '/events', eventBody(n, data)));
  return { ...data, events: ids };
}
