import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { jwtVerify } from 'jose';
import { freePort } from '../../scripts/shared/process-tools';
import { API, createTestApp, errorBody, TEST_SECRET, TestApp } from './helpers/test-app';

/*
 * Start-up as main.ts runs it: a bad configuration stops the process with one
 * clear line; without a token secret, development logs an administrator
 * token and production is read-only. Runs the real entry point on SQLite.
 */

const ENTRY = ['-r', 'ts-node/register/transpile-only', 'src/main.ts'];

function cleanEnv(): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('AUTH_') && k !== 'DATABASE_URL' && k !== 'NODE_ENV',
    ),
  );
}

function start(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ENTRY, {
    cwd: process.cwd(),
    env: { ...cleanEnv(), SQLITE_PATH: ':memory:', RATE_LIMIT_PER_MINUTE: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function output(
  child: ChildProcess,
  until: (text: string) => boolean,
  timeoutMs = 30000,
): Promise<string> {
  let text = '';
  const collect = (chunk: Buffer) => (text += chunk.toString());
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const deadline = Date.now() + timeoutMs;
  while (!until(text) && child.exitCode === null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return text;
}

// The child process runs on SQLite whatever the project: once is enough.
const onSqlite = process.env.TEST_ENGINE === 'mysql' ? describe.skip : describe;

onSqlite('start-up', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ SITE_TIMEZONE: 'Mars/Base' }, 'SITE_TIMEZONE'],
    [{ AUTH_JWT_SECRET: 'too-short' }, 'AUTH_JWT_SECRET'],
  ])('refuses %p with one line naming %s and exit code 1', async (env, name) => {
    const child = start(env);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^Configuration error: ${name} [^\\n]*\\n$`));
    expect(stderr).not.toMatch(/\bat \S+ \(/);
  });

  it('logs an administrator token outside production when no secret is set, and it works', async () => {
    const port = 39000 + Math.floor(Math.random() * 500);
    const child = start({ PORT: String(port), LOG_LEVEL: 'info' });
    try {
      const log = await output(
        child,
        (text) =>
          /Administrator token for this run \(12 h\): (\S+?)"/.test(text) &&
          text.includes('Nest application successfully started'),
      );
      const token = /Administrator token for this run \(12 h\): (\S+?)"/.exec(log)?.[1];
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const res = await fetch(`http://127.0.0.1:${port}${API}/tags`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Dev' }),
      });
      expect(res.status).toBe(201);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});

onSqlite('the first screen of the log', () => {
  it('shows the administrator token and a "listening on" line among the first lines; health is logged at the root', async () => {
    const port = await freePort();
    const child = start({ PORT: String(port), LOG_LEVEL: 'debug' });
    try {
      const log = await output(child, (text) => text.includes('Listening on'));
      const lines = log.trim().split('\n');
      const infoLines = lines.filter((line) => !line.includes('"level":20'));
      const token = infoLines.findIndex((line) =>
        line.includes('Administrator token for this run'),
      );
      const listening = infoLines.findIndex((line) => line.includes('Listening on'));
      expect(token).toBeGreaterThanOrEqual(0);
      expect(listening).toBeGreaterThan(token);
      expect(listening).toBeLessThan(10);
      expect(JSON.parse(infoLines[listening]).msg).toBe(
        `Listening on http://localhost:${port}: API http://localhost:${port}${API}, ` +
          `OpenAPI http://localhost:${port}${API}/doc, Swagger UI http://localhost:${port}/docs, ` +
          `health http://localhost:${port}/health/ready`,
      );
      // Route lines are debug only, and name the paths as they are served.
      const debug = lines.filter((line) => line.includes('"level":20')).join('\n');
      expect(debug).toContain('Mapped {/health/live, GET} route');
      expect(debug).toContain(`Mapped {${API}/events, GET} route`);
      expect(log).not.toContain(`${API}/health`);
      expect(infoLines.join('\n')).not.toMatch(/Mapped \{|dependencies initialized/);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});

onSqlite('idle after start', () => {
  it('has built no Intl formatter or collator (their ICU data is megabytes of memory)', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [...ENTRY.slice(0, 2), '-r', './test/e2e/helpers/intl-watch.ts', ...ENTRY.slice(2)],
      {
        cwd: process.cwd(),
        env: { ...cleanEnv(), PORT: String(port), SQLITE_PATH: ':memory:', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const log = await output(child, (text) => text.includes('Listening on'));
      // The background jobs' first runs (the recurrence horizon, retention) start with the app.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
      expect(log).toContain('Listening on');
      const built = stderr.split('\n').filter((line) => line.startsWith('intl-built'));
      expect(built).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});

onSqlite('npm start', () => {
  it('builds, starts, and stops node dist/main.js on SIGTERM', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start'], {
      cwd: process.cwd(),
      env: { ...cleanEnv(), PORT: String(port), SQLITE_PATH: ':memory:', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = await output(npm, (text) => text.includes('Listening on'), 120000);
    const server = JSON.parse(
      log.split('\n').find((line) => line.includes('Listening on')) ?? '{}',
    );
    expect(server.pid).toEqual(expect.any(Number));
    expect(server.pid).not.toBe(npm.pid);
    expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
    npm.kill('SIGTERM');
    await once(npm, 'exit');
    const deadline = Date.now() + 10000;
    while (isAlive(server.pid) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(isAlive(server.pid)).toBe(false);
  }, 180000);
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('production without a token secret', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ NODE_ENV: 'production', AUTH_JWT_SECRET: '' });
  });
  afterAll(() => t?.close());

  it('is read-only: reads work, every write answers 401', async () => {
    await t.http().get(`${API}/tags`).expect(200);
    const res = await t
      .http()
      .post(`${API}/tags`)
      .set('Authorization', t.auth.administrator)
      .send({ name: 'x' })
      .expect(401);
    expect(res.body).toEqual(errorBody('rest_forbidden', 401));
  });
});

onSqlite('npm run token', () => {
  const run = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['-r', 'ts-node/register/transpile-only', 'scripts/token.ts', ...args],
        {
          cwd: process.cwd(),
          env: { PATH: process.env.PATH ?? '', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('mints a token the service accepts with the configured secret', async () => {
    const { code, stdout } = await run(['--sub', '2', '--role', 'editor'], {
      AUTH_JWT_SECRET: TEST_SECRET,
    });
    expect(code).toBe(0);
    const { payload } = await jwtVerify(stdout.trim(), new TextEncoder().encode(TEST_SECRET));
    expect(payload).toEqual(expect.objectContaining({ sub: '2', role: 'editor' }));
  });

  it('refuses a bad role or a missing secret with one line', async () => {
    const badRole = await run(['--sub', '2', '--role', 'king'], { AUTH_JWT_SECRET: TEST_SECRET });
    expect(badRole.code).toBe(1);
    expect(badRole.stderr.trim().split('\n')).toHaveLength(1);
    const noSecret = await run(['--sub', '2', '--role', 'editor'], {});
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toMatch(/AUTH_JWT_SECRET/);
  });
});
