/**
 * Batches (docs/api.md §18) against the same writes sent one by one, over
 * real HTTP on one keep-alive connection: per round, 100 event creates sent
 * one after another, as one default batch and as one atomic batch (the
 * order rotates between rounds). Also 100 creates that fail validation (400,
 * nothing written), one by one and as a batch: what the transport and the
 * HTTP stack cost without the write, to tell where the time goes.
 *
 *   npm run bench:batch -- [--database-url mysql://…/calendar_bench_batch]
 *       [--events 2000] [--rounds 5] [--size 100] [--variants "one by one,atomic batch"]
 *
 * Besides the time, each variant's process CPU per create (service and client
 * share the process; the client's part is the same for every variant but the
 * batches', where it is smaller) and its statements per create, counted on the
 * service's connections.
 *
 * Without --database-url it runs on a fresh SQLite file. The database is first
 * filled with `--events` events (by batches). A MySQL database whose name does
 * not contain "bench" is refused (the script writes to it).
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import { DataSource } from 'typeorm';
import { startInProcessService } from './shared/in-process-service';
import { assertBenchDatabase } from './shared/bench-database';

interface Answer {
  status: number;
  body: string;
}

type Variant = 'one by one' | 'batch' | 'atomic batch' | 'invalid, one by one' | 'invalid, batch';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      events: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '5' },
      size: { type: 'string', default: '100' },
      variants: { type: 'string' },
    },
  });
  const databaseUrl = values['database-url'] ?? '';
  assertBenchDatabase(databaseUrl);
  const size = Number(values.size);
  const { app, base, token } = await startInProcessService({ databaseUrl, role: 'editor' });
  const url = new URL(base);
  // One connection for every request of the bench, kept alive.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, payload: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const body = Buffer.from(JSON.stringify(payload));
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path: `${url.pathname}${path}`,
          headers: {
            Authorization: `Bearer ${token}`,
            'Content-Type': 'application/json',
            'Content-Length': body.length,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  let n = 0;
  const event = () => {
    const day = DateTime.utc()
      .plus({ days: 1 + (n % 365) })
      .toFormat('yyyy-MM-dd');
    return {
      title: `Bench concert ${n++}`,
      start_date: `${day} 20:00:00`,
      end_date: `${day} 22:00:00`,
      categories: ['Muziek'],
      cost: '10',
    };
  };
  const invalid = () => ({ ...event(), end_date: '1999-01-01 00:00:00' });
  const operations = (body: () => object) =>
    Array.from({ length: size }, () => ({ method: 'POST', path: '/events', body: body() }));

  /** Runs `size` creates one way; fails unless every one answered `expected`. */
  const variants: Record<Variant, () => Promise<void>> = {
    'one by one': () => oneByOne(event, 201),
    batch: () => batch(false, event, 201),
    'atomic batch': () => batch(true, event, 201),
    'invalid, one by one': () => oneByOne(invalid, 400),
    'invalid, batch': () => batch(false, invalid, 400),
  };
  async function oneByOne(body: () => object, expected: number): Promise<void> {
    for (let i = 0; i < size; i++) {
      const answer = await send('POST', '/events', body());
      if (answer.status !== expected) throw new Error(`create: ${answer.status} ${answer.body}`);
    }
  }
  async function batch(atomic: boolean, body: () => object, expected: number): Promise<void> {
    const answer = await send('POST', '/batch', { atomic, operations: operations(body) });
    const results = (JSON.parse(answer.body) as { results?: Array<{ status: number }> }).results;
    const ok = results?.filter((r) => r.status === expected).length;
    if (answer.status !== 200 || ok !== size)
      throw new Error(`batch: ${answer.status} ${answer.body.slice(0, 500)}`);
  }

  const dataSource = app.get(DataSource);
  const countEvents = async () =>
    Number(
      ((await dataSource.query('SELECT COUNT(*) AS total FROM events')) as [{ total: unknown }])[0]
        .total,
    );
  const all = Object.keys(variants) as Variant[];
  const chosen = values.variants?.split(',').map((name) => name.trim());
  const order = chosen ? all.filter((name) => chosen.includes(name)) : all;
  if (!order.includes('one by one'))
    throw new Error(`--variants: "one by one" and any of ${all.join(', ')}`);
  // Every statement the service sends (transaction statements and savepoints included).
  const statementCount = { n: 0 };
  dataSource.subscribers.push({ afterQuery: () => void statementCount.n++ });
  const seedTo = Number(values.events);
  while ((await countEvents()) < seedTo) await batch(false, event, 201);
  const before = await countEvents();
  // Warm-up: every code path once.
  for (const name of order) await variants[name]();

  const ms = new Map<Variant, number[]>();
  const cpu = new Map<Variant, number[]>();
  const statements = new Map<Variant, number[]>();
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const name of [
      ...order.slice(round % order.length),
      ...order.slice(0, round % order.length),
    ]) {
      const counted = statementCount.n;
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      await variants[name]();
      const used = process.cpuUsage(cpuStarted);
      ms.set(name, [...(ms.get(name) ?? []), performance.now() - started]);
      cpu.set(name, [...(cpu.get(name) ?? []), (used.user + used.system) / 1000]);
      statements.set(name, [...(statements.get(name) ?? []), statementCount.n - counted]);
    }
  }
  const after = await countEvents();
  agent.destroy();
  await app.close();

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const sequential = median(ms.get('one by one')!);
  const invalidSequential = median(ms.get('invalid, one by one') ?? ms.get('one by one')!);
  console.log(
    `engine: ${databaseUrl ? 'mysql' : 'sqlite'}, events: ${before} before the rounds, ${after} after; ` +
      `${values.rounds} rounds of ${size} creates per variant, one keep-alive connection`,
  );
  console.log(
    `| variant | ms per ${size} (median) | min … max | creates/s | speed-up | CPU ms per create | statements per create |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const name of order) {
    const runs = ms.get(name)!;
    const m = median(runs);
    const reference = name.startsWith('invalid') ? invalidSequential : sequential;
    console.log(
      `| ${name} | ${m.toFixed(0)} | ${Math.min(...runs).toFixed(0)} … ${Math.max(...runs).toFixed(0)} | ` +
        `${((size * 1000) / m).toFixed(0)} | ${(reference / m).toFixed(2)}× | ` +
        `${(median(cpu.get(name)!) / size).toFixed(2)} | ${(median(statements.get(name)!) / size).toFixed(2)} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
