import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { sendRaw, waitUntil } from './http';

/** Every child the bench started; all are stopped on exit, Ctrl-C included. */
const children = new Set<ChildProcess>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping the servers\n`);
      void stopAll().finally(() => process.exit(130));
    });
  }
}

export function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins every thread of this process (the load generator) to `core`. */
export function pinSelf(core: number): void {
  execFileSync('taskset', ['-a', '-cp', String(core), String(process.pid)], { stdio: 'ignore' });
}

export interface Server {
  name: string;
  port: number;
  child: ChildProcess;
  /** The node process itself (taskset execs it, so the PID is the same). */
  pid: number;
  logFile: string;
}

/**
 * Starts `node <args>` (pinned to `core` when given) with `env`, logging to
 * `logFile`, and waits until `ready` answers true (at most `timeoutMs`).
 */
export async function startServer(options: {
  name: string;
  port: number;
  /** The node binary (default: the one running this script). */
  node?: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  core?: number;
  logFile: string;
  ready: (port: number) => Promise<boolean>;
  timeoutMs?: number;
}): Promise<Server> {
  hookExit();
  const node = options.node ?? process.execPath;
  const command = options.core === undefined ? node : 'taskset';
  const args =
    options.core === undefined ? options.args : ['-c', String(options.core), node, ...options.args];
  const log = createWriteStream(options.logFile);
  const child = spawn(command, args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  child.once('exit', () => children.delete(child));
  if (child.pid === undefined) throw new Error(`${options.name}: could not start ${command}`);
  await waitUntil(
    `${options.name} (log: ${options.logFile})`,
    () => options.ready(options.port),
    options.timeoutMs ?? 60_000,
    () => child.exitCode === null,
  );
  return { name: options.name, port: options.port, child, pid: child.pid, logFile: options.logFile };
}

export async function stopServer(server: Server | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((child) => stopServer({ child } as Server)));
}

/** /health/ready of the service. */
export async function serviceReady(port: number): Promise<boolean> {
  const response = await sendRaw({ port, method: 'GET', path: '/health/ready', timeoutMs: 2000 });
  return response.status === 200;
}

/** The reference servers answer 404 for anything outside their routes once they listen. */
export async function baselineReady(port: number): Promise<boolean> {
  const response = await sendRaw({ port, method: 'GET', path: '/', timeoutMs: 2000 });
  return response.status === 404;
}

/**
 * Transpiles the two reference servers, scripts/bench/baseline.ts and
 * scripts/bench/minimal.ts (which imports the baseline's row converters), to
 * plain JavaScript (types stripped) side by side next to node_modules, so
 * they run on plain node like the built service: no ts-node or compiler in
 * their memory.
 */
export function transpileReferences(root: string): { baseline: string; minimal: string } {
  const dir = join(root, 'node_modules/.cache/calendar-bench');
  mkdirSync(dir, { recursive: true });
  const transpile = (name: string) => {
    const source = readFileSync(join(root, `scripts/bench/${name}.ts`), 'utf8');
    const output = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
      fileName: `${name}.ts`,
    });
    const file = join(dir, `${name}.js`);
    writeFileSync(file, output.outputText);
    if (!existsSync(file)) throw new Error(`could not write the transpiled ${name} server`);
    return file;
  };
  return { baseline: transpile('baseline'), minimal: transpile('minimal') };
}
