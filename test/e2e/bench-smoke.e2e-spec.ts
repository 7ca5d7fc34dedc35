import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchReport } from '../../scripts/bench';
import type { SearchBenchReport } from '../../scripts/bench-search';
import { onServer, runScript, ScriptRun, scratchDatabase } from './helpers/scripts';

/*
 * `npm run bench -- --smoke` end to end, on MySQL/MariaDB only: a database of
 * its own, seeded with a tiny dataset by `npm run seed`, then the bench on two
 * request sets. Both reference servers (the same-SQL baseline and the minimal
 * raw server) must answer the service's bytes, the tables must be printed and
 * no request may fail. Timings are not checked.
 */

const SECRET = 'bench-smoke-secret-that-is-long-enough-0123456789';

const describeMysql =
  process.env.TEST_ENGINE === 'mysql' && process.env.TEST_DATABASE_URL ? describe : describe.skip;
const title =
  process.env.TEST_ENGINE === 'mysql'
    ? 'npm run bench -- --smoke (MySQL)'
    : 'npm run bench -- --smoke (skipped: needs TEST_ENGINE=mysql and TEST_DATABASE_URL)';

describeMysql(title, () => {
  const db = process.env.TEST_DATABASE_URL
    ? scratchDatabase('bench')
    : { url: '', serverUrl: '', name: '' };
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  const env = { ...process.env, DATABASE_URL: db.url, AUTH_JWT_SECRET: SECRET };
  let run: ScriptRun;
  let report: BenchReport;

  beforeAll(async () => {
    await onServer(db.serverUrl, `DROP DATABASE IF EXISTS \`${db.name}\``);
    await onServer(
      db.serverUrl,
      `CREATE DATABASE \`${db.name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    const seed = await runScript(
      'scripts/seed.ts',
      [
        '--events',
        '300',
        '--venues',
        '20',
        '--organizers',
        '20',
        '--categories',
        '5',
        '--tags',
        '10',
      ],
      env,
      60_000,
    );
    if (seed.code !== 0) throw new Error(`npm run seed failed:\n${seed.output}`);
    const json = join(dir, 'report.json');
    run = await runScript(
      'scripts/bench.ts',
      ['--smoke', '--database-url', db.url, '--sets', 'list,id', '--warmup', '0.3', '--json', json],
      env,
      // It may build dist/ first (CI starts without one), then starts three servers.
      180_000,
    );
    try {
      report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    } catch {
      throw new Error(`the bench wrote no report (exit ${run.code}):\n${run.output}`);
    }
  }, 300_000);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (db.serverUrl) await onServer(db.serverUrl, `DROP DATABASE IF EXISTS \`${db.name}\``);
  });

  it('exits 0', () => {
    expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({
      code: 0,
      output: '',
    });
  });

  it('finds both references answering the same bytes as the service for every set before timing', () => {
    expect(report.comparisons.map((c) => [c.reference, c.set, c.ok, c.status, c.diff])).toEqual([
      ['baseline', 'list', true, 200, undefined],
      ['baseline', 'id', true, 200, undefined],
      ['minimal', 'list', true, 200, undefined],
      ['minimal', 'id', true, 200, undefined],
    ]);
    expect(report.equal).toBe(true);
    expect(run.output).toContain(
      'byte-equality: all 4 comparison(s) identical (2 set(s) against the baseline, 2 against the minimal server)',
    );
  });

  it('prints the machine, the data sizes and the results table', () => {
    expect(run.output).toMatch(/machine: cpu .+; cores \d+; node v\d+/);
    expect(run.output).toContain('events 300,');
    expect(run.output).toMatch(
      /\| request set +\| server +\| conn \| req\/s \| p50 ms \| p99 ms \| err\/non-2xx \| RSS MB \| CPU ms\/req \| ours\/base \| ours\/min \|/,
    );
    expect(run.output).toMatch(
      /\| request set +\| conn \| req\/s ours\/base \| req\/s ours\/min \| p99 ms ours \| p99 ours\/base \| p99 ours\/min \| CPU ms\/req ours \| CPU ours\/base \| CPU ours\/min \|/,
    );
    expect(report.dataSizes.events).toBe(300);
    expect(report.rows.map((row) => [row.set, row.connections])).toEqual([
      ['list', 1],
      ['list', 10],
      ['id', 1],
      ['id', 10],
    ]);
    for (const row of report.rows) {
      expect(row.ours.requests).toBeGreaterThan(0);
      expect(row.baseline.requests).toBeGreaterThan(0);
      expect(row.minimal?.requests).toBeGreaterThan(0);
      expect(row.ours.maxRssMb).toBeGreaterThan(0);
      // Hundreds of requests cost the server more than one 10 ms CPU tick.
      expect(row.ours.cpuMsPerRequest).toBeGreaterThan(0);
      expect(row.baseline.cpuMsPerRequest).toBeGreaterThan(0);
      expect(row.minimal?.cpuMsPerRequest).toBeGreaterThan(0);
    }
  });

  it('sees no request errors, timeouts or non-2xx answers', () => {
    expect({ errors: report.errors, non2xx: report.non2xx }).toEqual({ errors: 0, non2xx: 0 });
  });

  it('npm run bench:builds measures the creates of two builds in turn and removes them', async () => {
    // The bench above built dist/; here it stands for both builds.
    const builds = await runScript(
      'scripts/bench-builds.ts',
      [
        ...['--database-url', db.url, '--entries', 'dist/main.js,dist/main.js'],
        ...['--rounds', '1', '--duration', '0.5', '--warmup', '0.3', '--connections', '1'],
      ],
      env,
      120_000,
    );
    expect({ code: builds.code, output: builds.code === 0 ? '' : builds.output }).toEqual({
      code: 0,
      output: '',
    });
    for (const build of [1, 2])
      expect(builds.output).toMatch(
        new RegExp(`round 1 build ${build} 1 conn: [1-9][\\d.]* creates/s, p99 [\\d.]+ ms`),
      );
    expect(builds.output).toMatch(/\| 2 \| 1 \| [1-9][\d.]* \| [\d.]+ \| [\d.]+ \| [\d.]+× \|/);
    expect(builds.output).toMatch(/removed [1-9]\d* bench events/);
  }, 150_000);
});

/*
 * `npm run bench:search -- --smoke` on the jest project's engine: a tiny
 * seeded database of its own, every band (events, venues, organizers) asked
 * without an error, no word found in the no-match sets, and create throughput measured with and
 * without the full-text index, which is in place again afterwards.
 */
describe(`npm run bench:search -- --smoke (${process.env.TEST_ENGINE === 'mysql' ? 'MySQL' : 'SQLite'})`, () => {
  const mysql = process.env.TEST_ENGINE === 'mysql';
  const dir = mkdtempSync(join(tmpdir(), 'bench-search-smoke-'));
  const db = mysql ? scratchDatabase('search_bench') : { url: '', serverUrl: '', name: '' };
  const sqlitePath = join(dir, 'bench.sqlite');
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    SQLITE_PATH: sqlitePath,
    AUTH_JWT_SECRET: SECRET,
  };
  let run: ScriptRun;
  let report: SearchBenchReport;

  beforeAll(async () => {
    if (mysql) {
      await onServer(db.serverUrl, `DROP DATABASE IF EXISTS \`${db.name}\``);
      await onServer(
        db.serverUrl,
        `CREATE DATABASE \`${db.name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
    }
    const seed = await runScript(
      'scripts/seed.ts',
      [
        '--events',
        '300',
        '--venues',
        '20',
        '--organizers',
        '20',
        '--categories',
        '5',
        '--tags',
        '10',
      ],
      env,
      60_000,
    );
    if (seed.code !== 0) throw new Error(`npm run seed failed:\n${seed.output}`);
    const json = join(dir, 'report.json');
    const target = mysql ? ['--database-url', db.url] : ['--sqlite-path', sqlitePath];
    run = await runScript(
      'scripts/bench-search.ts',
      [...target, '--smoke', '--json', json],
      env,
      180_000,
    );
    try {
      report = JSON.parse(readFileSync(json, 'utf8')) as SearchBenchReport;
    } catch {
      throw new Error(`the bench wrote no report (exit ${run.code}):\n${run.output}`);
    }
  }, 300_000);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (mysql) await onServer(db.serverUrl, `DROP DATABASE IF EXISTS \`${db.name}\``);
  });

  it('exits 0 and prints the data size and the bands', () => {
    expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({
      code: 0,
      output: '',
    });
    expect(run.output).toContain('events 300, translations 600');
    expect(run.output).toContain(
      '| band | words | requests | errors | p50 ms | p99 ms | req/s | X-Total min / median / max |',
    );
    expect(report.dataSizes).toEqual({
      events: 300,
      translations: 600,
      venues: 20,
      organizers: 20,
    });
  });

  it('asks every band without an error, and finds nothing for the no-match words', () => {
    expect(report.bands.length).toBeGreaterThanOrEqual(3);
    for (const band of report.bands) {
      expect({ band: band.band, requests: band.requests, errors: band.errors }).toEqual({
        band: band.band,
        requests: 10,
        errors: 0,
      });
    }
    const none = report.bands[report.bands.length - 1];
    expect([none.band, none.totals]).toEqual(['no match, 10 years', [0, 0, 0]]);
    expect(report.bands[0].band).toBe('no search (reference)');
    expect(report.bands[1].totals[2]).toBeGreaterThan(0);
  });

  it('asks the venue and organizer bands without an error, and finds nothing for the no-match words', () => {
    for (const kind of ['venues', 'organizers']) {
      const bands = report.content?.[kind] ?? [];
      expect(bands.length).toBeGreaterThanOrEqual(3);
      for (const band of bands)
        expect([kind, band.band, band.errors]).toEqual([kind, band.band, 0]);
      // The reference lists the published ones of the 20.
      expect(bands[0].band).toBe('no search (reference)');
      expect(bands[0].totals[0]).toBeGreaterThan(0);
      expect(bands[0].totals[0]).toBeLessThanOrEqual(20);
      expect([bands[bands.length - 1].band, bands[bands.length - 1].totals]).toEqual([
        'no match',
        [0, 0, 0],
      ]);
      // A band of words drawn from the records finds some of them.
      expect(bands[1].totals[2]).toBeGreaterThan(0);
    }
  });

  it('measures creates with and without the index, and leaves the index in place', async () => {
    expect(report.writes?.withIndex).toBeGreaterThan(0);
    expect(report.writes?.withoutIndex).toBeGreaterThan(0);
    // A second run finds the same words (the index is whole again, the bench's events are gone).
    const again = await runScript(
      'scripts/bench-search.ts',
      [...(mysql ? ['--database-url', db.url] : ['--sqlite-path', sqlitePath]), '--requests', '3'],
      env,
      120_000,
    );
    expect(again.code).toBe(0);
    expect(again.output).toContain('events 300, translations 600');
    expect(again.output).toMatch(/\| no match, 10 years \| - \| 3 \| 0 \|/);
  }, 150_000);
});
