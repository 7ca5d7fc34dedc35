import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';

/*
 * For the smoke tests of the project's scripts (bench, soak): run a script
 * as `npm run` would, on a MySQL database of its own.
 */

export const ROOT = resolve(__dirname, '../../..');
const TS_NODE = require.resolve('ts-node/dist/bin.js');

export interface ScriptRun {
  code: number | null;
  /** stdout and stderr, interleaved. */
  output: string;
}

/** `node ts-node --transpile-only <script> …args` in the project root; SIGTERM after `timeoutMs`. */
export function runScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<ScriptRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [TS_NODE, '--transpile-only', script, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.once('error', fail);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

/** A database named after TEST_DATABASE_URL's, with `suffix` and this process's ID. */
export function scratchDatabase(suffix: string): { url: string; serverUrl: string; name: string } {
  const base = new URL(process.env.TEST_DATABASE_URL ?? '');
  const name = `${decodeURIComponent(base.pathname.replace(/^\//, ''))}_${suffix}_${process.pid}`;
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  const server = new URL(base.toString());
  server.pathname = '/';
  return { url: url.toString(), serverUrl: server.toString(), name };
}

/** One statement on the MySQL server (CREATE/DROP DATABASE). */
export async function onServer(serverUrl: string, sql: string): Promise<void> {
  const connection = await createConnection({ uri: serverUrl });
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}
