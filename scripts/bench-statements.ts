/**
 * Statements per write, by kind: counted by MariaDB's general log (the
 * service's own connections only) and, as a cross-check, by a TypeORM
 * subscriber like src/database/query-observer.ts (every statement TypeORM sends).
 *
 *   npm run bench:statements -- [--database-url mysql://root@127.0.0.1:3306/calendar_bench_statements]
 *                               [--requests 20] [--warmup 5] [--json FILE]
 *
 * The database (its name must contain "test" or "bench") is dropped and made
 * anew; the service runs in this process on it (migrations at start), without
 * the webhook sender (WEBHOOKS_WORKER=false: the write's own statements only,
 * the outbox rows included). Each case runs `--warmup` writes, then
 * `--requests` writes one after another; the figures are per write. The
 * general log is switched on for the measured writes only (log_output=TABLE)
 * and set back as it was.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { startInProcessService, type InProcessService } from './shared/in-process-service';

const KINDS = [
  'start',
  'select',
  'locking select',
  'insert',
  'update',
  'delete',
  'commit',
  'other',
] as const;
type Kind = (typeof KINDS)[number];

interface CaseResult {
  case: string;
  webhook: boolean;
  perWrite: Record<Kind, number>;
  total: number;
  /** The same writes as TypeORM's afterQuery saw them. */
  observed: number;
  /** One write's statements in order, from the general log (the last measured write). */
  sample: string[];
}

interface WriteCase {
  name: string;
  /** Makes what the measured writes need (outside the measured window); returns their inputs. */
  prepare?: (n: number) => Promise<unknown[]>;
  write: (i: number, input: unknown) => Promise<void>;
}

function kindOf(sql: string): Kind {
  const keyword = /^\s*\(?\s*([A-Za-z]+)/.exec(sql)?.[1].toLowerCase() ?? '';
  if (keyword === 'start' || keyword === 'begin') return 'start';
  if (keyword === 'commit') return 'commit';
  if (keyword === 'select' || keyword === 'with')
    return /\b(FOR UPDATE|LOCK IN SHARE MODE|FOR SHARE)\s*$/i.test(sql)
      ? 'locking select'
      : 'select';
  if (keyword === 'insert' || keyword === 'update' || keyword === 'delete') return keyword;
  return 'other';
}

async function main() {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      requests: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '5' },
      json: { type: 'string' },
    },
  });
  const url = new URL(
    values['database-url'] ?? 'mysql://root@127.0.0.1:3306/calendar_bench_statements',
  );
  const database = url.pathname.slice(1);
  if (!/test|bench/.test(database))
    throw new Error(
      `the database name must contain "test" or "bench" (it is dropped): ${database}`,
    );
  const requests = Number(values.requests);
  const warmup = Number(values.warmup);
  const { createConnection } = await import('mysql2/promise');
  const admin: Connection = await createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  });
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.query(
    `CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  );
  const [[logState]] = await admin.query<RowDataPacket[]>(
    'SELECT @@global.general_log AS on_, @@global.log_output AS output',
  );
  const results: CaseResult[] = [];
  try {
    for (const webhook of [false, true])
      results.push(...(await measure(admin, url.toString(), database, webhook, requests, warmup)));
  } finally {
    await admin.query('SET GLOBAL general_log = ?', [Number(logState.on_) ? 'ON' : 'OFF']);
    await admin.query('SET GLOBAL log_output = ?', [logState.output]);
    await admin.end();
  }
  console.log(report(results));
  if (values.json) writeFileSync(values.json, JSON.stringify(results, null, 2));
}

async function measure(
  admin: Connection,
  databaseUrl: string,
  database: string,
  webhook: boolean,
  requests: number,
  warmup: number,
): Promise<CaseResult[]> {
  const service = await startInProcessService({
    databaseUrl,
    role: 'administrator',
    env: {
      WEBHOOKS_WORKER: 'false',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    },
  });
  let observed = 0;
  service.app.get(DataSource).subscribers.push({ afterQuery: () => void observed++ });
  const call = api(service);
  try {
    if (webhook) await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] });
    const category = (await call('POST', '/categories', { name: `Cat ${webhook}` })).id as number;
    const tags = [
      (await call('POST', '/tags', { name: `Tag a ${webhook}` })).id as number,
      (await call('POST', '/tags', { name: `Tag b ${webhook}` })).id as number,
    ];
    const venue = (await call('POST', '/venues', { venue: `Venue ${webhook}` })).id as number;
    const organizers = [
      (await call('POST', '/organizers', { organizer: `Org a ${webhook}` })).id as number,
      (await call('POST', '/organizers', { organizer: `Org b ${webhook}` })).id as number,
    ];
    const event = (i: number, extra: Record<string, unknown> = {}) => ({
      title: `Statements ${webhook} ${i} ${Math.random()}`,
      description: '<p>Counted by npm run bench:statements.</p>',
      start_date: '2090-01-01 19:30:00',
      end_date: '2090-01-01 22:00:00',
      categories: [category],
      ...extra,
    });
    const createEvents = async (n: number) => {
      const ids: unknown[] = [];
      for (let i = 0; i < n; i++) ids.push((await call('POST', '/events', event(i))).id);
      return ids;
    };
    const cases: WriteCase[] = [
      {
        name: 'create event, one category',
        write: (i) => call('POST', '/events', event(i)).then(),
      },
      {
        name: 'create event, category + venue + 2 organizers + 2 tags',
        write: (i) =>
          call('POST', '/events', event(i, { venue, organizer: organizers, tags })).then(),
      },
      {
        name: 'update event (PATCH title)',
        prepare: createEvents,
        write: (i, id) =>
          call('PATCH', `/events/${id as number}`, { title: `Renamed ${i}` }).then(),
      },
      {
        name: 'trash event',
        prepare: createEvents,
        write: (_i, id) => call('DELETE', `/events/${id as number}`).then(),
      },
      {
        name: 'create venue',
        write: (i) =>
          call('POST', '/venues', { venue: `Venue ${webhook} ${i} ${Math.random()}` }).then(),
      },
      {
        name: 'create category',
        write: (i) =>
          call('POST', '/categories', { name: `Category ${webhook} ${i} ${Math.random()}` }).then(),
      },
    ];
    const results: CaseResult[] = [];
    for (const c of cases) {
      const inputs = (await c.prepare?.(warmup + requests)) ?? [];
      for (let i = 0; i < warmup; i++) await c.write(i, inputs[i]);
      await admin.query("SET GLOBAL log_output = 'TABLE'");
      await admin.query('SET GLOBAL general_log = ON');
      const [[{ since }]] = await admin.query<RowDataPacket[]>('SELECT NOW(6) AS since');
      const observedBefore = observed;
      const statements: Array<{ thread: number; last: boolean; sql: string }> = [];
      let lastSince = since as unknown;
      for (let i = warmup; i < warmup + requests; i++) {
        if (i === warmup + requests - 1)
          [[{ lastSince }]] = await admin.query<RowDataPacket[]>('SELECT NOW(6) AS lastSince');
        await c.write(i, inputs[i]);
      }
      await admin.query('SET GLOBAL general_log = OFF');
      const [rows] = await admin.query<RowDataPacket[]>(
        'SELECT thread_id, event_time >= ? AS last, CONVERT(argument USING utf8mb4) AS sql_text FROM mysql.general_log ' +
          "WHERE event_time >= ? AND command_type = 'Query' AND thread_id IN " +
          '(SELECT id FROM information_schema.processlist WHERE db = ?) ORDER BY event_time',
        [lastSince, since, database],
      );
      for (const row of rows)
        statements.push({
          thread: Number(row.thread_id),
          last: Number(row.last) === 1,
          sql: String(row.sql_text),
        });
      const perWrite = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
      for (const s of statements) perWrite[kindOf(s.sql)]++;
      for (const k of KINDS) perWrite[k] /= requests;
      results.push({
        case: c.name,
        webhook,
        perWrite,
        total: statements.length / requests,
        observed: (observed - observedBefore) / requests,
        sample: statements.filter((s) => s.last).map((s) => `[${s.thread}] ${s.sql.slice(0, 160)}`),
      });
    }
    return results;
  } finally {
    await service.app.close();
  }
}

function api(service: InProcessService) {
  return async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${service.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${service.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
}

function report(results: CaseResult[]): string {
  const head = `| write | webhook endpoint | ${KINDS.join(' | ')} | total (general log) | TypeORM saw |`;
  const rule = `|---|---|${KINDS.map(() => '---:').join('|')}|---:|---:|`;
  const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
  const lines = results.map(
    (r) =>
      `| ${r.case} | ${r.webhook ? 'one' : 'none'} | ${KINDS.map((k) => fmt(r.perWrite[k])).join(' | ')} | ${fmt(r.total)} | ${fmt(r.observed)} |`,
  );
  const samples = results.map(
    (r) =>
      `\n${r.case}, ${r.webhook ? 'one endpoint' : 'no endpoint'}:\n  ${r.sample.join('\n  ')}`,
  );
  return [head, rule, ...lines, '', 'The last write of each case, in order:', ...samples].join(
    '\n',
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
