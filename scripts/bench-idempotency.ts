/**
 * Event create throughput with and without an Idempotency-Key (docs/api.md §13),
 * over real HTTP: `--connections` clients each POST events back to back for
 * `--duration` seconds, rounds alternating which variant goes first. Also the
 * throughput of replays (the same key and body again).
 *
 *   npm run bench:idempotency -- [--database-url mysql://…/calendar_bench_idem]
 *       [--events 2000] [--duration 5] [--rounds 3] [--connections 1,10]
 *
 * Without --database-url it runs on a fresh SQLite file, first filled with
 * `--events` events. A MySQL database whose name does not contain "bench" is
 * refused (the script writes to it).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import { startInProcessService } from './shared/in-process-service';
import { assertBenchDatabase } from './shared/bench-database';

interface Figures {
  requests: number;
  errors: number;
  ms: number[];
  seconds: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      events: { type: 'string', default: '2000' },
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '1,10' },
    },
  });
  const databaseUrl = values['database-url'] ?? '';
  assertBenchDatabase(databaseUrl);
  const { app, base, token } = await startInProcessService({
    databaseUrl,
    role: 'editor',
  });

  let n = 0;
  const body = () => {
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
  const post = async (payload: object, key?: string): Promise<number> => {
    const res = await fetch(`${base}/events`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        ...(key ? { 'Idempotency-Key': key } : {}),
      },
      body: JSON.stringify(payload),
    });
    await res.arrayBuffer();
    return res.status;
  };

  const seedCount = Number(values.events);
  for (let i = 0; i < seedCount; i += 10) {
    await Promise.all(Array.from({ length: Math.min(10, seedCount - i) }, () => post(body())));
  }

  const run = async (
    connections: number,
    request: () => Promise<number>,
    expected: number,
  ): Promise<Figures> => {
    const figures: Figures = { requests: 0, errors: 0, ms: [], seconds: Number(values.duration) };
    const end = Date.now() + figures.seconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < end) {
          const started = performance.now();
          const status = await request();
          figures.ms.push(performance.now() - started);
          figures.requests++;
          if (status !== expected) figures.errors++;
        }
      }),
    );
    return figures;
  };
  const replayKey = randomUUID();
  const replayBody = body();
  await post(replayBody, replayKey);
  const variants: Record<string, () => Promise<number>> = {
    'no key': () => post(body()),
    'with key': () => post(body(), randomUUID()),
    'replay (same key)': () => post(replayBody, replayKey),
  };
  const results = new Map<string, Figures[]>();
  const connectionsList = values.connections.split(',').map(Number);
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = Object.keys(variants);
    if (round % 2 === 1) order.reverse();
    for (const connections of connectionsList) {
      for (const name of order) {
        const figures = await run(connections, variants[name], 201);
        const key = `${name}|${connections}`;
        results.set(key, [...(results.get(key) ?? []), figures]);
      }
    }
  }
  const [{ total }] = (await app
    .get((await import('typeorm')).DataSource)
    .query('SELECT COUNT(*) AS total FROM events')) as [{ total: number }];
  await app.close();

  const pct = (xs: number[], p: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  };
  console.log(
    `engine: ${databaseUrl ? 'mysql' : 'sqlite'}, events at the end: ${total}, ` +
      `${values.rounds} rounds × ${values.duration} s per variant`,
  );
  console.log('| variant | connections | req/s (median of rounds) | p50 ms | p99 ms | errors |');
  console.log('|---|---|---|---|---|---|');
  for (const [key, rounds] of results) {
    const [name, connections] = key.split('|');
    const rates = rounds.map((f) => f.requests / f.seconds).sort((a, b) => a - b);
    const ms = rounds.flatMap((f) => f.ms);
    const errors = rounds.reduce((sum, f) => sum + f.errors, 0);
    console.log(
      `| ${name} | ${connections} | ${rates[Math.floor(rates.length / 2)].toFixed(0)} | ` +
        `${pct(ms, 50).toFixed(1)} | ${pct(ms, 99).toFixed(1)} | ${errors} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
