import { ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { freePort } from '../shared/process-tools';

/** The built service (dist/main.js) as a child process: its PID is the one sampled. */
export interface Service {
  child: ChildProcess;
  pid: number;
  port: number;
  /** The last lines the service wrote (warnings and errors only: LOG_LEVEL=warn). */
  log: () => string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (or signal). */
  stop: (graceMs?: number) => Promise<string>;
}

export function httpStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/**
 * Starts `node dist/main.js` with the environment given (serviceEnv: nothing
 * of the caller's or a .env file leaks in) on a free port, and waits for
 * /health/ready.
 */
export async function startService(
  root: string,
  entry: string,
  env: Record<string, string>,
): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [entry], {
    cwd: root,
    env: { PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code !== null ? `exit ${code}` : `${signal}`)),
  );
  const stop = async (graceMs = 40_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };
  if (child.pid === undefined) throw new Error('could not start the service');
  const deadline = Date.now() + 60_000;
  while ((await httpStatus(port, '/health/ready')) !== 200) {
    if (child.exitCode !== null) throw new Error(`the service exited at start-up:\n${log}`);
    if (Date.now() > deadline) {
      await stop(5000);
      throw new Error(`the service was not ready within 60 s:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, pid: child.pid, port, log: () => log, stop };
}
