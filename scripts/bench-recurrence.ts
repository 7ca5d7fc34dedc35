/**
 * Recurring series write times (contract §16, issue 16): creating a daily
 * open-ended series (about 730 occurrences up to the default 24-month
 * horizon), editing it (every occurrence rewritten) and deleting it for
 * good, each one request and one transaction, over real HTTP.
 *
 *   npm run bench:recurrence -- [--database-url mysql://…/calendar_bench_recur] [--rounds 5] [--webhook]
 *
 * --webhook registers one endpoint subscribed to every message type (a local
 * receiver answering 200), so each write also stores one change message per
 * occurrence in its transaction (docs/api.md §15).
 *
 * Without --database-url it runs on a fresh SQLite file. A MySQL database
 * whose name does not contain "bench" is refused (the script writes to it).
 *
 * `--compare-lists --one-off-url … --series-url …`: lists on a database of
 * series against one of one-off events instead (scripts/bench-recurrence-lists.ts).
 */
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import { compareLists } from './bench-recurrence-lists';
import { startInProcessService } from './shared/in-process-service';
import { assertBenchDatabase } from './shared/bench-database';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      rounds: { type: 'string', default: '5' },
      webhook: { type: 'boolean', default: false },
    },
  });
  const databaseUrl = values['database-url'] ?? '';
  assertBenchDatabase(databaseUrl);
  const { app, base, token } = await startInProcessService({
    databaseUrl,
    role: 'administrator',
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
  });
  const call = async (method: string, path: string, body?: object) => {
    const started = performance.now();
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const ms = performance.now() - started;
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
    return { ms, body: (await res.json()) as { id: number } };
  };
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.end('ok');
    });
  });
  if (values.webhook) {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    await call('POST', '/webhooks', { url: `http://127.0.0.1:${port}/hook`, events: ['*'] });
  }
  const today = DateTime.utc().toISODate() as string;
  const times: Record<'create' | 'edit' | 'delete', number[]> = {
    create: [],
    edit: [],
    delete: [],
  };
  let occurrences = 0;
  for (let round = 0; round < Number(values.rounds); round++) {
    const created = await call('POST', '/events', {
      title: `Dagelijkse training ${round}`,
      start_date: `${today} 07:00:00`,
      end_date: `${today} 08:00:00`,
      timezone: 'Europe/Amsterdam',
      categories: ['Sport'],
      recurrence: ['RRULE:FREQ=DAILY'],
    });
    times.create.push(created.ms);
    const listed = await fetch(
      `${base}/events?post_parent=${created.body.id}&start_date=2000-01-01&end_date=2100-01-01&per_page=1`,
    );
    occurrences = Number(listed.headers.get('x-total'));
    times.edit.push(
      (
        await call('PATCH', `/events/${created.body.id}`, {
          title: `Training ${round}`,
          start_date: `${today} 07:30:00`,
          end_date: `${today} 08:45:00`,
        })
      ).ms,
    );
    times.delete.push((await call('DELETE', `/events/${created.body.id}?force=true`)).ms);
  }
  await app.close();
  receiver.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `engine: ${databaseUrl ? 'mysql' : 'sqlite'}, occurrences per series: ${occurrences}, rounds: ${values.rounds}` +
      (values.webhook ? `, webhook messages received: ${received}` : ''),
  );
  console.log('| request | median ms | max ms |\n|---|---|---|');
  for (const [name, xs] of Object.entries(times)) {
    console.log(`| ${name} | ${median(xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`);
  }
}

if (process.argv.includes('--compare-lists')) {
  compareLists();
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
