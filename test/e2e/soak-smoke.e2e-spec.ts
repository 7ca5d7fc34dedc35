import { onServer, runScript, ScriptRun, scratchDatabase } from './helpers/scripts';

/*
 * `npm run soak` end to end for 20 s: builds dist/ if needed, starts the
 * service, creates a small dataset, holds load with autocannon, samples RSS,
 * prints the table and the verdict, stops the service with SIGTERM. Runs in
 * ONE jest project only: on MySQL/MariaDB (a database of its own) when
 * TEST_DATABASE_URL is set, else on SQLite. 20 s cannot judge memory growth
 * (start-up growth dominates), so the slope limit is lifted; the smoke proves
 * the machinery works and that the mix of reads and writes draws no 5xx.
 */

const mysqlConfigured = Boolean(process.env.TEST_DATABASE_URL);
const engine = process.env.TEST_ENGINE === 'mysql' ? 'mysql' : 'sqlite';
const runsHere = mysqlConfigured ? engine === 'mysql' : engine === 'sqlite';

const describeHere = runsHere ? describe : describe.skip;
const title = runsHere
  ? `npm run soak -- --duration 20s (${engine})`
  : `npm run soak -- --duration 20s (skipped on ${engine}: runs on ${mysqlConfigured ? 'mysql' : 'sqlite'} only)`;

describeHere(title, () => {
  const db = engine === 'mysql' ? scratchDatabase('soak') : undefined;
  let run: ScriptRun;

  beforeAll(async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.DATABASE_URL;
    if (db) {
      await onServer(db.serverUrl, `DROP DATABASE IF EXISTS \`${db.name}\``);
      await onServer(
        db.serverUrl,
        `CREATE DATABASE \`${db.name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
      env.DATABASE_URL = db.url;
    }
    run = await runScript(
      'scripts/soak.ts',
      [
        '--duration',
        '20s',
        '--interval',
        '5',
        '--connections',
        '2',
        '--events',
        '20',
        '--max-slope',
        '100000',
      ],
      env,
      // dist/ may have to be built first (a clean checkout).
      240_000,
    );
  }, 270_000);

  afterAll(async () => {
    if (db) await onServer(db.serverUrl, `DROP DATABASE IF EXISTS \`${db.name}\``);
  });

  it('exits 0 with a passing verdict', () => {
    expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({
      code: 0,
      output: '',
    });
    expect(run.output).toContain('verdict: PASS (memory flat, no 5xx)');
  });

  it('drew responses and no 5xx, request errors or timeouts', () => {
    const [, responses, non2xx, status5xx, errors] =
      /responses: (\d+), req\/s: [\d.]+, non-2xx: (\d+), 5xx: (\d+), errors\/timeouts: (\d+)/.exec(
        run.output,
      ) ?? [];
    expect(Number(responses)).toBeGreaterThan(100);
    expect({ non2xx, status5xx, errors }).toEqual({ non2xx: '0', status5xx: '0', errors: '0' });
  });

  it('prints the RSS samples, the slope and a clean shutdown', () => {
    expect(run.output).toMatch(
      engine === 'mysql' ? /soak: MySQL database \w+_soak_\d+/ : /soak: SQLite \S+soak\.sqlite/,
    );
    const table = run.output.match(/^ +\d+ +\d+\.\d +\d+-\d+ +\d+ +\d+ +\d+ +\d+ +\d+$/gm) ?? [];
    // Rows at 0 s, every 5 s and the end.
    expect(table.length).toBeGreaterThanOrEqual(4);
    expect(run.output).toMatch(
      /RSS slope \(Theil-Sen\), steady state: -?[\d.]+ MB\/min; second half: -?[\d.]+ MB\/min/,
    );
    expect(run.output).toContain('shutdown on SIGTERM: exit 0');
  });
});
