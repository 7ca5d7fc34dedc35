/**
 * The framework's floor: CPU per request of answers that reach no database,
 * on the built service and on the same-SQL baseline (scripts/bench/baseline.ts,
 * plain node:http), both pinned to core 0 when taskset exists:
 * - an editor's create body without `title` (400): every middleware, the
 *   guards, the validation pipe and the error filter, and the baseline's own
 *   token check, body read and title test;
 * - an unknown route (404): the middleware and the error answer alone.
 * What a create costs beyond these is its own work (statements, mapping).
 *
 *   npm run bench:floor -- [--database-url mysql://…] [--requests 3000] [--rounds 3]
 *
 * One connection, requests one after another (keep-alive); each round warms
 * up with 300 requests per case and server. Prints CPU ms per request (the
 * server process's threads) and requests/s, per round and as medians.
 */
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { editorToken } from './bench';
import {
  baselineReady,
  hasTaskset,
  serviceReady,
  startServer,
  stopServer,
  transpileReferences,
  type Server,
} from './bench/processes';
import { median } from './bench/round-stats';
import { ensureBuilt, freePort, threadCpuSeconds } from './shared/process-tools';
import { benchSettings, serviceEnv, settingsEnv } from './shared/service-env';

const ROOT = resolve(__dirname, '..');
const API = '/calendar/events/v1';

/** The CPU time of a server process so far, in ms (its threads' on-CPU time). */
function cpuMs(pid: number): number {
  const seconds = threadCpuSeconds(pid);
  if (seconds === undefined) throw new Error(`process ${pid} is gone`);
  return seconds * 1000;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      requests: { type: 'string', default: '3000' },
      rounds: { type: 'string', default: '3' },
    },
  });
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL ?? '';
  if (!databaseUrl.startsWith('mysql://'))
    throw new Error('--database-url (or DATABASE_URL) must be mysql://… (a seeded database)');
  const requests = Number(values.requests);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(requests) || requests < 100 || !Number.isInteger(rounds) || rounds < 1)
    throw new Error('--requests ≥ 100 and --rounds ≥ 1 must be integers');

  const entry = ensureBuilt(ROOT, (line) => console.error(line));
  const settings = benchSettings();
  const env = serviceEnv(settings.secret, { DATABASE_URL: databaseUrl, ...settingsEnv(settings) });
  const logDir = mkdtempSync(join(tmpdir(), 'calendar-floor-'));
  const core = hasTaskset() ? 0 : undefined;
  const servicePort = await freePort();
  const baselinePort = await freePort();
  const servers: Server[] = [
    await startServer({
      name: 'service',
      port: servicePort,
      args: [entry],
      env: { ...env, PORT: String(servicePort) },
      core,
      logFile: join(logDir, 'service.log'),
      ready: serviceReady,
    }),
    await startServer({
      name: 'baseline',
      port: baselinePort,
      args: [transpileReferences(ROOT).baseline],
      env: { ...env, PORT: String(baselinePort), BASELINE_CODE_ROOT: join(ROOT, 'dist') },
      core,
      logFile: join(logDir, 'baseline.log'),
      ready: baselineReady,
    }),
  ];
  const token = await editorToken(settings.secret);
  const withoutTitle = JSON.stringify({
    description: '<p>Created by npm run bench; removed when the run ends.</p>',
    excerpt: 'Benchmark event',
    start_date: '2090-01-01 19:30:00',
    end_date: '2090-01-01 22:00:00',
    timezone: 'Europe/Amsterdam',
    cost: ['€10', '€25'],
    website: 'https://example.org/bench',
    categories: [1, 2],
    tags: [3, 4, 5],
    organizer: [1, 2],
  });
  const cases = [
    {
      label: 'create without title',
      status: 400,
      method: 'POST',
      path: `${API}/events`,
      body: withoutTitle,
    },
    {
      label: 'unknown route',
      status: 404,
      method: 'GET',
      path: `${API}/no-such-route`,
      body: undefined,
    },
  ];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (port: number, method: string, path: string, body?: string) =>
    new Promise<number>((resolveStatus, reject) => {
      const headers: Record<string, string | number> = body
        ? {
            'content-type': 'application/json',
            authorization: `Bearer ${token}`,
            'content-length': Buffer.byteLength(body),
          }
        : {};
      const req = httpRequest({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolveStatus(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });

  const results = new Map<string, Array<{ cpu: number; rate: number }>>();
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const c of cases) {
        for (const server of servers) {
          for (let i = 0; i < 300; i++) await send(server.port, c.method, c.path, c.body);
          const cpuBefore = cpuMs(server.pid);
          const started = process.hrtime.bigint();
          for (let i = 0; i < requests; i++) {
            const status = await send(server.port, c.method, c.path, c.body);
            if (status !== c.status)
              throw new Error(`${server.name} ${c.label}: ${status}, expected ${c.status}`);
          }
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          const figure = {
            cpu: (cpuMs(server.pid) - cpuBefore) / requests,
            rate: requests / seconds,
          };
          const key = `${c.label} (${c.status})|${server.name}`;
          results.set(key, [...(results.get(key) ?? []), figure]);
          console.log(
            `round ${round}: ${`${c.label} (${c.status})`.padEnd(27)} ${server.name.padEnd(8)} ` +
              `${figure.cpu.toFixed(3)} ms CPU/request, ${figure.rate.toFixed(0)} requests/s`,
          );
        }
      }
    }
  } finally {
    await Promise.all(servers.map((server) => stopServer(server)));
  }
  console.log(
    `\n| answer | server | CPU ms/request (median of ${rounds}) | requests/s | service/baseline CPU |`,
  );
  console.log('|---|---|---:|---:|---:|');
  for (const c of cases) {
    const label = `${c.label} (${c.status})`;
    const cpuOf = (name: string) =>
      median((results.get(`${label}|${name}`) ?? []).map((r) => r.cpu));
    for (const server of servers) {
      const runs = results.get(`${label}|${server.name}`) ?? [];
      const ratio =
        server.name === 'service' ? `${(cpuOf('service') / cpuOf('baseline')).toFixed(2)}×` : '';
      console.log(
        `| ${label} | ${server.name} | ${cpuOf(server.name).toFixed(3)} | ${median(runs.map((r) => r.rate)).toFixed(0)} | ${ratio} |`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
