/**
 * `search` on `/events` as a search box uses it (docs/api.md §5.1): every
 * request a query not asked before (a word of the band with a start date not
 * used with it yet, so no cached total answers it), one connection, over
 * real HTTP to the service in this process. Words are drawn from the
 * database's own texts (a sample of the Dutch texts, as anonymous Dutch
 * requests see them) in three bands of how many events they begin a word
 * of; a fourth set asks words found nowhere over a 10-year window, and a
 * first one the same lists without search, as the reference of the moment.
 *
 *   npm run bench:search -- [--database-url mysql://…/calendar_bench_1m | --sqlite-path data/x.sqlite]
 *       [--requests 200] [--writes 0] [--kinds events,venues,organizers] [--json report.json] [--smoke]
 *
 * Venues and organizers (docs/api.md §5.2) get the same bands, with words
 * drawn from a sample of their Dutch names, texts and searched columns, each
 * request with a `per_page` not used with its word yet (`--kinds events` to
 * leave them out).
 *
 * `--writes N` also measures create throughput (N events POSTed back to back)
 * with the full-text index and without it (the FullTextSearch migration
 * undone, then done again), alternating, and force-deletes what it created:
 * it refuses a database whose name or path does not contain "bench".
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source-options';
import { FullTextSearch1765400000000 } from '../src/database/migrations/1765400000000-full-text-search';
import { fullTextWords } from '../src/posts/search';
import { startInProcessService } from './shared/in-process-service';

export interface BandFigures {
  band: string;
  /** Share of events the band's words begin a word of (estimated from the sample). */
  share: string;
  words: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  perSecond: number;
  /** X-Total of the answers: lowest, median, highest. */
  totals: [number, number, number];
}

export interface SearchBenchReport {
  dataSizes: { events: number; translations: number; venues: number; organizers: number };
  engine: string;
  bands: BandFigures[];
  /** The bands of `/venues` and `/organizers` searches. */
  content?: Record<string, BandFigures[]>;
  /** Creates per second, and the share lost to the index in per cent. */
  writes?: { withIndex: number; withoutIndex: number; lossPercent: number };
}

/** [name, lowest share, highest share] of the events a word begins a word of. */
const BANDS: Array<[string, number, number]> = [
  ['rare (≤ 1 %)', 0, 0.01],
  ['medium (1–10 %)', 0.01, 0.1],
  ['common (10–30 %)', 0.1, 0.3],
];

const SAMPLE = 4000;
const WORD = /[\p{L}\p{N}_]+/gu;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      'sqlite-path': { type: 'string' },
      requests: { type: 'string', default: '200' },
      writes: { type: 'string', default: '0' },
      kinds: { type: 'string', default: 'events,venues,organizers' },
      json: { type: 'string' },
      smoke: { type: 'boolean', default: false },
    },
  });
  const databaseUrl = values['database-url'] ?? '';
  const sqlitePath = values['sqlite-path'] ?? '';
  if (!databaseUrl && !sqlitePath) throw new Error('--database-url or --sqlite-path is needed');
  const requests = values.smoke ? 10 : Number(values.requests);
  const writes = values.smoke ? 20 : Number(values.writes);
  if (writes > 0 && !/bench/.test(databaseUrl ? new URL(databaseUrl).pathname : sqlitePath))
    throw new Error('--writes needs a database whose name or path contains "bench"');

  const dataSource = new DataSource(
    dataSourceOptions({ databaseUrl: databaseUrl || undefined, sqlitePath, migrationsRun: false }),
  );
  await dataSource.initialize();
  const { app, base, token } = await startInProcessService({
    databaseUrl,
    role: 'editor',
    env: sqlitePath ? { SQLITE_PATH: sqlitePath } : {},
  });
  try {
    const dataSizes = await sizes(dataSource);
    const engine = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
    console.log(
      `machine: node ${process.version}; ${engine}; events ${dataSizes.events}, translations ${dataSizes.translations}, ` +
        `venues ${dataSizes.venues}, organizers ${dataSizes.organizers}`,
    );
    const kinds = (values.kinds ?? '').split(',');
    const report: SearchBenchReport = { dataSizes, engine, bands: [] };
    if (kinds.includes('events')) report.bands = await eventBands(dataSource, base, requests);
    for (const kind of CONTENT_KINDS.filter((k) => kinds.includes(k.path))) {
      report.content ??= {};
      report.content[kind.path] = await contentBands(dataSource, base, kind, requests);
    }
    if (writes > 0) report.writes = await writeLoss(dataSource, base, token, writes);
    if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
  } finally {
    await app.close();
    await dataSource.destroy();
  }
}

/** The event bands: the plain list as the reference, three bands of words, no match over 10 years. */
async function eventBands(
  dataSource: DataSource,
  base: string,
  requests: number,
): Promise<BandFigures[]> {
  {
    const shares = await wordShares(dataSource);
    const today = DateTime.utc().startOf('day');
    // The same lists without search: what the machine gives any new list query now.
    const plain = Array.from(
      { length: requests },
      (_, i) => `start_date=${today.minus({ days: 1 + i }).toFormat('yyyy-MM-dd')}`,
    );
    const bands: BandFigures[] = [
      { ...(await run(base, 'events', 'no search (reference)', plain)), share: '' },
    ];
    for (const [name, low, high] of BANDS) {
      const words = [...shares].filter(([, share]) => share > low && share <= high);
      if (words.length === 0) {
        console.log(`${name}: no words in the sample`);
        continue;
      }
      const queries = Array.from({ length: requests }, (_, i) => {
        const [word] = words[i % words.length];
        const start = today
          .minus({ days: 1 + Math.floor(i / words.length) })
          .toFormat('yyyy-MM-dd');
        return `search=${encodeURIComponent(word)}&start_date=${start}`;
      });
      const band = await run(base, 'events', name, queries);
      band.words = words.length;
      band.share = `${(low * 100).toFixed(0)}–${(high * 100).toFixed(0)} %`;
      bands.push(band);
    }
    const from = today.minus({ years: 5 }).toFormat('yyyy-MM-dd');
    const to = today.plus({ years: 5 }).minus({ days: 1 }).toFormat('yyyy-MM-dd');
    const none = Array.from(
      { length: requests },
      (_, i) => `search=zq${nonsense(i)}&start_date=${from}&end_date=${to}`,
    );
    bands.push({ ...(await run(base, 'events', 'no match, 10 years', none)), share: '0 %' });
    printBands('/events', bands);
    return bands;
  }
}

async function sizes(dataSource: DataSource): Promise<SearchBenchReport['dataSizes']> {
  const count = async (table: string) =>
    Number((await dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  return {
    events: await count('events'),
    translations: await count('event_translations'),
    venues: await count('venues'),
    organizers: await count('organizers'),
  };
}

/** A searched content kind: its path, tables and searched columns (docs/api.md §5.2). */
interface ContentKindTables {
  path: 'venues' | 'organizers';
  table: string;
  translations: string;
  owner: string;
  columns: string[];
}

const CONTENT_KINDS: ContentKindTables[] = [
  {
    path: 'venues',
    table: 'venues',
    translations: 'venue_translations',
    owner: 'venue_id',
    columns: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  },
  {
    path: 'organizers',
    table: 'organizers',
    translations: 'organizer_translations',
    owner: 'organizer_id',
    columns: ['phone', 'email', 'website'],
  },
];

/**
 * The bands of one content kind: the plain list as the reference, three
 * bands of words drawn from its records (each word with a `per_page` not
 * asked with it before), and words found nowhere.
 */
async function contentBands(
  dataSource: DataSource,
  base: string,
  kind: ContentKindTables,
  requests: number,
): Promise<BandFigures[]> {
  const fields = ['tr.name', 'tr.excerpt', 'tr.description', ...kind.columns.map((c) => `p.${c}`)];
  const [{ n }] = await dataSource.query(`SELECT MAX(id) AS n FROM ${kind.table}`);
  const step = Math.max(1, Math.floor(Number(n) / SAMPLE));
  const rows: Array<Record<string, string | null>> = await dataSource.query(
    `SELECT ${fields.map((f, i) => `${f} AS f${i}`).join(', ')} FROM ${kind.table} p
      INNER JOIN ${kind.translations} tr ON tr.${kind.owner} = p.id AND tr.language = 'nl'
      WHERE p.id % ${step} = 0`,
  );
  const shares = sampleShares(rows.map((row) => Object.values(row).map((v) => v ?? '')));
  // Past 100 per page the page is capped: vary per_page within it, and the word.
  const perPage = (i: number, words: number) => 1 + (Math.floor(i / words) % 100);
  const plain = Array.from({ length: requests }, (_, i) => `per_page=${perPage(i, 1)}`);
  const bands: BandFigures[] = [
    { ...(await run(base, kind.path, 'no search (reference)', plain)), share: '' },
  ];
  for (const [name, low, high] of BANDS) {
    const words = [...shares].filter(([, share]) => share > low && share <= high);
    if (words.length === 0) {
      console.log(`${kind.path} ${name}: no words in the sample`);
      continue;
    }
    const queries = Array.from({ length: requests }, (_, i) => {
      const [word] = words[i % words.length];
      return `search=${encodeURIComponent(word)}&per_page=${perPage(i, words.length)}`;
    });
    const band = await run(base, kind.path, name, queries);
    band.words = words.length;
    band.share = `${(low * 100).toFixed(0)}–${(high * 100).toFixed(0)} %`;
    bands.push(band);
  }
  const none = Array.from({ length: requests }, (_, i) => `search=zq${nonsense(i)}`);
  bands.push({ ...(await run(base, kind.path, 'no match', none)), share: '0 %' });
  printBands(`/${kind.path}`, bands);
  return bands;
}

/**
 * Each word (3 characters or more, not a number) of the sampled records'
 * fields, with the share of records one field of which it begins a word of.
 */
function sampleShares(records: string[][]): Map<string, number> {
  const counts = new Map<string, number>();
  const words = new Set<string>();
  for (const fields of records) {
    const prefixes = new Set<string>();
    for (const field of fields) {
      for (const [token] of field
        .toLowerCase()
        .replace(/<[^>]*>/g, ' ')
        .matchAll(WORD)) {
        const chars = [...token];
        for (let length = 3; length <= chars.length; length++)
          prefixes.add(chars.slice(0, length).join(''));
        if (!/^\d+$/.test(token) && fullTextWords(token)[0] === token) words.add(token);
      }
    }
    for (const prefix of prefixes) counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  }
  const shares = new Map<string, number>();
  for (const word of [...words].sort()) shares.set(word, (counts.get(word) ?? 0) / records.length);
  return shares;
}

/**
 * Each word (3 characters or more) of a sample of the Dutch texts, with the
 * share of sampled events one of whose words it begins.
 */
async function wordShares(dataSource: DataSource): Promise<Map<string, number>> {
  const [{ n }] = await dataSource.query('SELECT MAX(event_id) AS n FROM event_translations');
  const step = Math.max(1, Math.floor(Number(n) / SAMPLE));
  const rows: Array<Record<string, string | null>> = await dataSource.query(
    `SELECT title, excerpt, description FROM event_translations
      WHERE language = 'nl' AND event_id % ${step} = 0`,
  );
  const counts = new Map<string, number>();
  for (const row of rows) {
    const prefixes = new Set<string>();
    const text = `${row.title} ${row.excerpt ?? ''} ${row.description ?? ''}`.toLowerCase();
    for (const [token] of text.matchAll(WORD)) {
      const chars = [...token];
      for (let length = 3; length <= chars.length; length++)
        prefixes.add(chars.slice(0, length).join(''));
    }
    for (const prefix of prefixes) counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  }
  // Whole words only (a prefix that is itself a word of the texts), not HTML tag names.
  const words = new Set<string>();
  for (const row of rows) {
    const text = `${row.title} ${row.excerpt ?? ''} ${row.description ?? ''}`.toLowerCase();
    for (const [token] of text.replace(/<[^>]*>/g, ' ').matchAll(WORD)) {
      if (!/^\d+$/.test(token) && fullTextWords(token)[0] === token) words.add(token);
    }
  }
  const shares = new Map<string, number>();
  for (const word of [...words].sort()) shares.set(word, (counts.get(word) ?? 0) / rows.length);
  return shares;
}

/** A word of letters that is the i-th of its kind. */
function nonsense(i: number): string {
  let out = '';
  for (let n = i + 1; n > 0; n = Math.floor(n / 26)) out += String.fromCharCode(97 + (n % 26));
  return `${out}xq`;
}

async function run(
  base: string,
  path: string,
  band: string,
  queries: string[],
): Promise<BandFigures> {
  const ms: number[] = [];
  const totals: number[] = [];
  let errors = 0;
  const started = performance.now();
  for (const query of queries) {
    const t0 = performance.now();
    const res = await fetch(`${base}/${path}?${query}`);
    await res.arrayBuffer();
    ms.push(performance.now() - t0);
    if (res.status !== 200) errors++;
    totals.push(Number(res.headers.get('x-total')));
  }
  const seconds = (performance.now() - started) / 1000;
  ms.sort((a, b) => a - b);
  totals.sort((a, b) => a - b);
  const at = (list: number[], q: number) =>
    list[Math.min(list.length - 1, Math.floor(q * list.length))];
  return {
    band,
    share: '',
    words: 0,
    requests: queries.length,
    errors,
    p50: round(at(ms, 0.5)),
    p99: round(at(ms, 0.99)),
    perSecond: round(queries.length / seconds),
    totals: [totals[0], at(totals, 0.5), totals[totals.length - 1]],
  };
}

function printBands(path: string, bands: BandFigures[]): void {
  console.log(path);
  console.log(
    '| band | words | requests | errors | p50 ms | p99 ms | req/s | X-Total min / median / max |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const b of bands) {
    console.log(
      `| ${b.band} | ${b.words || '-'} | ${b.requests} | ${b.errors} | ${b.p50} | ${b.p99} | ${b.perSecond} | ${b.totals.join(' / ')} |`,
    );
  }
}

/**
 * Creates per second with the index and without it (three alternating
 * rounds of `count / 3` creates each), then the index as the migration
 * builds it again and the bench's events force-deleted.
 */
async function writeLoss(
  dataSource: DataSource,
  base: string,
  token: string,
  count: number,
): Promise<NonNullable<SearchBenchReport['writes']>> {
  const migration = new FullTextSearch1765400000000();
  const runner = dataSource.createQueryRunner();
  const created: number[] = [];
  const rates = { withIndex: [] as number[], withoutIndex: [] as number[] };
  const per = Math.max(1, Math.floor(count / 3));
  let indexed = true;
  try {
    for (let round = 0; round < 6; round++) {
      const withIndex = round % 2 === 0;
      if (withIndex !== indexed) {
        await (withIndex ? migration.up(runner) : migration.down(runner));
        indexed = withIndex;
      }
      const started = performance.now();
      for (let i = 0; i < per; i++) created.push(await create(base, token, created.length));
      const rate = per / ((performance.now() - started) / 1000);
      (withIndex ? rates.withIndex : rates.withoutIndex).push(rate);
    }
  } finally {
    if (!indexed) await migration.up(runner);
    await runner.release();
    for (const id of created) {
      await fetch(`${base}/events/${id}?force=true`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
    }
  }
  const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
  const result = {
    withIndex: round(mean(rates.withIndex)),
    withoutIndex: round(mean(rates.withoutIndex)),
    lossPercent: round((1 - mean(rates.withIndex) / mean(rates.withoutIndex)) * 100),
  };
  console.log(
    `creates/s with the index ${result.withIndex}, without ${result.withoutIndex} (loss ${result.lossPercent} %)`,
  );
  return result;
}

async function create(base: string, token: string, n: number, retried = false): Promise<number> {
  // After the index is rebuilt (SQLite: synchronously, in this process) the server may close
  // a kept-alive socket just as it is reused: one retry on a new one.
  const res = await fetch(`${base}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      title: `Zoekbank concert ${n}`,
      excerpt: 'Een avond met muziek uit de Gouden Eeuw',
      description: '<p>Kom naar dit concert in Amsterdam. Neem gerust vrienden en familie mee.</p>',
      start_date: '2001-01-01 20:00:00',
      end_date: '2001-01-01 22:00:00',
    }),
  }).catch((error: unknown) => {
    if (retried) throw error;
    return undefined;
  });
  if (!res) return create(base, token, n, true);
  const body = (await res.json()) as { id?: number };
  if (res.status !== 201 || !body.id) throw new Error(`create answered ${res.status}`);
  return body.id;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
