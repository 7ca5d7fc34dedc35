/**
 * bench:obs --instructions: what metrics and traces cost counted in machine
 * instructions, which a loaded machine cannot blur. Each variant's server runs
 * under `valgrind --tool=callgrind` (every thread counted), several fresh
 * processes per variant; each gets warm-up requests, then `callgrind_control
 * -z`, exactly `requests` list requests at a fixed concurrency, then
 * `callgrind_control -d`: the dump's total Ir over the requests is the
 * figure. Timers fire on wall-clock time, and under valgrind a request takes
 * ~50× longer, so the metrics scrape is counted per request count instead:
 * a separate window of scrapes on the same process gives a scrape's Ir, added
 * once per `scrapeEvery` requests (real req/s × a 15 s scrape interval).
 */
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sendRaw } from './http';
import { serviceReady, Server, startServer, stopServer } from './processes';
import { callgrindTotal, instructionVerdict, relativeSpread, Verdict } from './callgrind';
import { freePort } from '../shared/process-tools';

const run = promisify(execFile);

export interface InstructionOptions {
  entry: string;
  variants: Array<{ mode: string; env: Record<string, string> }>;
  baseEnv: Record<string, string>;
  path: string;
  processes: number;
  warmup: number;
  requests: number;
  connections: number;
  /** Requests per scrape in a real deployment (req/s × scrape interval). */
  scrapeEvery: number;
  scrapes: number;
  /** Seconds of the idle window that measures timer work per wall-clock second. */
  idleSeconds: number;
  /** Requests a second in a real deployment: timer work is shared over them. */
  realRps: number;
  metricsToken: string;
  targets: Record<string, number>;
  outDir: string;
  parallel: number;
  log: (line: string) => void;
}

export interface ProcessFigure {
  mode: string;
  index: number;
  /** Ir of the counted window over its requests, timers included. */
  perRequest: number;
  /** Wall-clock seconds the counted window took under valgrind. */
  windowSeconds: number;
  /** Ir per wall-clock second with no request: the process's timers (event-loop monitor, polls). */
  idlePerSecond: number;
  /** Ir of one /metrics scrape, when the variant exposes metrics. */
  perScrape?: number;
}

/** Sends exactly `count` requests, `connections` at a time; every answer must be 200. */
async function send(port: number, path: string, count: number, connections: number, headers = {}) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const response = await sendRaw({ port, method: 'GET', path, headers, timeoutMs: 120_000 });
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(connections, count) }, worker));
}

/** Runs callgrind_control; a request in flight wakes a server idling in epoll. */
async function control(server: Server, flag: '-z' | '-d'): Promise<void> {
  const done = run('callgrind_control', [flag, String(server.pid)], { timeout: 120_000 });
  await done;
}

/** Total Ir of the newest dump of `prefix` in `dir` written since `known`. */
function newDump(dir: string, prefix: string, known: Set<string>): number {
  // `callgrind_control -d` writes <prefix><pid>.<n>; <prefix><pid> alone is the exit dump.
  const dumped = (name: string) => /^\d+\.\d+$/.test(name.slice(prefix.length));
  const fresh = readdirSync(dir).filter(
    (name) => name.startsWith(prefix) && dumped(name) && !known.has(name),
  );
  if (fresh.length !== 1)
    throw new Error(`expected one new dump of ${prefix}, found ${fresh.length}`);
  known.add(fresh[0]);
  return callgrindTotal(readFileSync(join(dir, fresh[0]), 'utf8'));
}

async function measureOne(
  options: InstructionOptions,
  variant: InstructionOptions['variants'][number],
  index: number,
): Promise<ProcessFigure> {
  const port = await freePort();
  const name = `${variant.mode}-${index}`;
  const prefix = `callgrind.${name}.`;
  const server = await startServer({
    name,
    port,
    node: 'valgrind',
    args: [
      '--tool=callgrind',
      // V8 writes and rewrites machine code: valgrind must notice it.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(options.outDir, `${prefix}%p`)}`,
      process.execPath,
      options.entry,
    ],
    env: { ...options.baseEnv, ...variant.env, PORT: String(port) },
    logFile: join(options.outDir, `${name}.log`),
    ready: serviceReady,
    timeoutMs: 900_000,
  });
  const known = new Set<string>();
  try {
    await send(port, options.path, options.warmup, options.connections);
    await control(server, '-z');
    const started = performance.now();
    await send(port, options.path, options.requests, options.connections);
    const windowSeconds = (performance.now() - started) / 1000;
    await control(server, '-d');
    const perRequest = newDump(options.outDir, prefix, known) / options.requests;
    // Timers fire per wall-clock second, and under valgrind a request takes ~50× longer:
    // the counted window holds ~50× the timer work a request shares in real use.
    await control(server, '-z');
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, options.idleSeconds * 1000));
    const dumped = control(server, '-d');
    await send(port, '/health/live', 1, 1); // wakes a server idling in epoll for the dump
    await dumped;
    const idlePerSecond =
      newDump(options.outDir, prefix, known) / ((performance.now() - idleStarted) / 1000);
    let perScrape: number | undefined;
    if (variant.env.METRICS_TOKEN) {
      const headers = { authorization: `Bearer ${options.metricsToken}` };
      await send(port, '/metrics', 2, 1, headers);
      await control(server, '-z');
      await send(port, '/metrics', options.scrapes, 1, headers);
      await control(server, '-d');
      perScrape = newDump(options.outDir, prefix, known) / options.scrapes;
    }
    options.log(
      `${name}: ${Math.round(perRequest).toLocaleString('en')} Ir/request over ` +
        `${windowSeconds.toFixed(1)} s, idle ${Math.round(idlePerSecond).toLocaleString('en')} Ir/s` +
        (perScrape ? `, ${Math.round(perScrape).toLocaleString('en')} Ir/scrape` : ''),
    );
    return { mode: variant.mode, index, perRequest, windowSeconds, idlePerSecond, perScrape };
  } finally {
    await stopServer(server);
  }
}

/** Every (variant, process) pair, `parallel` servers at a time; counts do not depend on load. */
export async function measureInstructions(options: InstructionOptions): Promise<ProcessFigure[]> {
  const jobs: Array<{ variant: InstructionOptions['variants'][number]; index: number }> = [];
  for (let index = 1; index <= options.processes; index++)
    for (const variant of options.variants) jobs.push({ variant, index });
  const figures: ProcessFigure[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      figures.push(await measureOne(options, job.variant, job.index));
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, worker));
  return figures;
}

/**
 * A figure as counted in a real deployment: the window's timer work (its idle
 * rate over its wall-clock time) taken out and one real second's of it shared
 * over `realRps` requests; a scrape's Ir shared over `scrapeEvery` requests.
 */
export function countedPerRequest(
  figure: ProcessFigure,
  options: Pick<InstructionOptions, 'scrapeEvery' | 'realRps' | 'requests'>,
): number {
  const timers = (figure.idlePerSecond * figure.windowSeconds) / options.requests;
  return (
    figure.perRequest -
    timers +
    figure.idlePerSecond / options.realRps +
    (figure.perScrape ?? 0) / options.scrapeEvery
  );
}

export function printInstructions(figures: ProcessFigure[], options: InstructionOptions): void {
  const byMode = (mode: string) =>
    figures.filter((f) => f.mode === mode).sort((a, b) => a.index - b.index);
  const counted = (mode: string) => byMode(mode).map((f) => countedPerRequest(f, options));
  const reference = [...counted('off'), ...counted('off-again')];
  const offMean = counted('off').reduce((a, b) => a + b, 0) / Math.max(1, counted('off').length);
  console.log(
    `reference (off and off-again, ${reference.length} processes): spread ` +
      `${(relativeSpread(reference) * 100).toFixed(2)} % (max − min over min)`,
  );
  console.log(
    '| variant | Ir/request per process (timers per real second, scrapes) | raw Ir/request (timers of the slow window) | idle Ir/s | mean vs off | target | verdict |',
  );
  console.log('|---|---:|---:|---:|---:|---|---|');
  for (const variant of options.variants) {
    const values = counted(variant.mode);
    if (values.length === 0) continue;
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const target = options.targets[variant.mode];
    const verdict: Verdict | '' =
      target === undefined ? '' : instructionVerdict(values, reference, target);
    const scrape = byMode(variant.mode).find((f) => f.perScrape)?.perScrape;
    console.log(
      `| ${variant.mode} | ${values.map((v) => Math.round(v).toLocaleString('en')).join(' / ')}` +
        `${scrape ? ` (scrape ${Math.round(scrape).toLocaleString('en')} Ir ÷ ${options.scrapeEvery})` : ''} | ` +
        `${byMode(variant.mode)
          .map((f) => Math.round(f.perRequest).toLocaleString('en'))
          .join(' / ')} | ` +
        `${byMode(variant.mode)
          .map((f) => Math.round(f.idlePerSecond).toLocaleString('en'))
          .join(' / ')} | ` +
        `${variant.mode === 'off' ? '' : `${(((mean - offMean) / offMean) * 100).toFixed(2)} %`} | ` +
        `${target === undefined ? '' : `≤ ${target * 100} %`} | ${verdict} |`,
    );
  }
}
