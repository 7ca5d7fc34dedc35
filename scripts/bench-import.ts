/**
 * iCalendar import write times (docs/api.md "Imports"): a generated feed of
 * `--events` VEVENTs (`--series` of them weekly series of 10, the rest
 * one-off events; 200 places, 50 organizers, 20 categories) parsed and
 * written by ImportWriter into an empty database, in this process; then the
 * same feed imported again, which must write nothing.
 *
 *   npm run bench:import -- --database-url mysql://root@127.0.0.1:3306/calendar_NAME_bench
 *                           [--events 10000] [--series 100]
 *
 * The database (its name must contain "bench") is dropped and made anew; the
 * service starts on it in this process (migrations at start). Printed: wall
 * time, events/s and this process's CPU time (parse + write, not the
 * database's), RSS before, at its peak (sampled every 20 ms) and after; for
 * the re-import its wall time, the statements by kind (a TypeORM subscriber
 * sees every statement sent), the change numbers and the data version
 * before and after.
 */
import { parseArgs } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { operationOf } from '../src/database/query-observer';
import { parseIcalendar } from '../src/imports/ical-import-parser';
import type { ImportReport, ImportTarget } from '../src/imports/import-report';
import { ImportWriter } from '../src/imports/import-writer';
import { startInProcessService } from './shared/in-process-service';

const ZONE = 'Europe/Amsterdam';

/** A feed in Google Calendar's shape: `events` VEVENTs, the first `series` of them weekly series. */
export function generatedFeed(events: number, series: number): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calendar bench//import//EN',
    `X-WR-TIMEZONE:${ZONE}`,
  ];
  const stamp = (date: Date) => date.toISOString().replace(/[-:]/g, '').slice(0, 15);
  const start = Date.UTC(2027, 0, 4, 9, 0, 0);
  for (let i = 0; i < events; i++) {
    const at = new Date(start + (i % 700) * 86_400_000 + (i % 9) * 3_600_000);
    const local = stamp(at);
    const end = stamp(new Date(at.getTime() + 90 * 60_000));
    lines.push(
      'BEGIN:VEVENT',
      `UID:bench-${i}@example.org`,
      'DTSTAMP:20261128T100000Z',
      `DTSTART;TZID=${ZONE}:${local}`,
      `DTEND;TZID=${ZONE}:${end}`,
      ...(i < series ? ['RRULE:FREQ=WEEKLY;COUNT=10'] : []),
      `SUMMARY:Evenement ${i}: lezing\\, concert of markt`,
      `DESCRIPTION:Beschrijving van evenement ${i}.\\nMet een tweede regel\\; en wat meer tekst om het wat langer te maken dan een regel.`,
      `LOCATION:Zaal ${i % 200}\\, Straat ${i % 200}\\, Utrecht`,
      `ORGANIZER;CN=Organisator ${i % 50}:mailto:org${i % 50}@example.org`,
      `CATEGORIES:Categorie ${i % 20},Categorie ${(i + 7) % 20}`,
      `URL:https://example.org/evenement/${i}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return lines.join('\r\n');
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      events: { type: 'string', default: '10000' },
      series: { type: 'string', default: '100' },
    },
  });
  const databaseUrl = values['database-url'] ?? '';
  const url = new URL(databaseUrl);
  const database = url.pathname.replace(/^\//, '');
  if (!/bench/.test(database))
    throw new Error('--database-url must name a MySQL database whose name contains "bench"');
  const server = new URL(databaseUrl);
  server.pathname = '/';
  const admin = await createConnection({ uri: server.toString() });
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.query(
    `CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  );
  await admin.end();

  const { app } = await startInProcessService({ databaseUrl, role: 'administrator' });
  const writer = app.get(ImportWriter);
  const dataSource = app.get(DataSource);
  const statements = new Map<string, number>();
  dataSource.subscribers.push({
    afterQuery: (event) => {
      const kind = operationOf(event.query);
      statements.set(kind, (statements.get(kind) ?? 0) + 1);
    },
  });
  const marks = async () => {
    const [[change], [version]] = await Promise.all([
      dataSource.query('SELECT MAX(seq) AS seq, COUNT(*) AS n FROM changes'),
      dataSource.query('SELECT version FROM data_version WHERE id = 1'),
    ]);
    return { maxSeq: Number(change.seq), changeRows: Number(change.n), version: Number(version.version) };
  };
  const events = Number(values.events);
  const target: ImportTarget = {
    source: 'bench',
    language: 'nl',
    status: 'publish',
    categoryIds: [],
    trashRemoved: true,
    authorId: 1,
  };
  const feed = generatedFeed(events, Number(values.series));
  const run = async () => {
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const before = process.memoryUsage().rss;
    statements.clear();
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const parsed = parseIcalendar(feed, { defaultZone: ZONE });
    const parsedAt = performance.now();
    const report: ImportReport = await writer.apply(target, parsed, undefined);
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(sampler);
    const after = process.memoryUsage().rss;
    peak = Math.max(peak, after);
    const { skipped, ...counts } = report;
    return {
      wall_s: +(ms / 1000).toFixed(2),
      parse_s: +((parsedAt - started) / 1000).toFixed(2),
      events_per_s: Math.round(events / (ms / 1000)),
      cpu_s: +((cpu.user + cpu.system) / 1e6).toFixed(2),
      counts,
      skipped: skipped.length,
      rss_mb: { before: mb(before), peak: mb(peak), after: mb(after), growth: mb(peak - before) },
      statements: Object.fromEntries(statements),
    };
  };
  const first = await run();
  const [[rows]] = [await dataSource.query('SELECT COUNT(*) AS n FROM events')];
  const beforeAgain = await marks();
  const again = await run();
  const afterAgain = await marks();
  console.log(
    JSON.stringify(
      {
        feed: { vevents: events, series: Number(values.series), bytes: Buffer.byteLength(feed) },
        import: { ...first, event_rows: Number(rows.n) },
        reimport: { ...again, marks_before: beforeAgain, marks_after: afterAgain },
      },
      null,
      2,
    ),
  );
  await app.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
