import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest, Agent, IncomingMessage } from 'node:http';
import { freePort, listeningPorts } from '../../../scripts/shared/process-tools';
import { TEST_SECRET } from '../helpers/test-app';

/*
 * The real entry point (src/main.ts) as a child process, for tests that need
 * signals, process exit codes or the process's own log output.
 */

const ENTRY = ['-r', 'ts-node/register/transpile-only', 'src/main.ts'];
const START_TIMEOUT_MS = 90_000;

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** Everything written to stdout and stderr so far. */
  output: () => string;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL if still alive after `graceMs`. */
  stop: (graceMs?: number) => Promise<void>;
}

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  // On Linux the child binds PORT=0 and is found on the port it got (listeningPorts): a port
  // picked here first could be bound by another process (another suite's supertest server)
  // before the child starts listening, and the probe below would then reach that process.
  const port = process.platform === 'linux' ? 0 : await freePort();
  // The parent's test settings stay out: the child gets a production-like environment.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(AUTH_|DATABASE_URL$|SQLITE_PATH$|NODE_ENV$|LOG_LEVEL$|REDIS_URL$|RATE_LIMIT|CORS_)/.test(
          k,
        ),
    ),
  );
  const child = spawn(process.execPath, ENTRY, {
    cwd: process.cwd(),
    env: {
      ...inherited,
      PORT: String(port),
      AUTH_JWT_SECRET: TEST_SECRET,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const server: ServerProcess = {
    child,
    port,
    output: () => text,
    exited,
    stop: async (graceMs = 5000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  // ts-node compiles src/ at each start: two starting at once on a busy 2-core machine took > 30 s.
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited at start-up:\n${text}`);
    if (server.port === 0) {
      const ports = child.pid === undefined ? [] : (listeningPorts(child.pid) ?? []);
      if (ports.length > 1) {
        await server.stop();
        throw new Error(`the server listens on several ports (${ports.join(', ')}):\n${text}`);
      }
      server.port = ports[0] ?? 0;
    }
    const res =
      server.port === 0 ? undefined : await get(server.port, '/health/live').catch(() => undefined);
    if (res?.status === 200) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`the server did not start within ${START_TIMEOUT_MS / 1000} s:\n${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** One request on its own connection (or the given agent's), loopback only. */
export function send(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; agent?: Agent } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: options.headers,
        agent: options.agent ?? false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export const get = (port: number, path: string, headers?: Record<string, string>) =>
  send(port, 'GET', path, { headers });
