import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { parse } from 'yaml';
import { EnvironmentVariables, validateEnvironment } from '../../src/config/env.validation';

/*
 * Static checks of docker/Dockerfile, docker/compose.yaml and .dockerignore:
 * no Docker engine runs here or in CI, so these are read, not built.
 */

const ROOT = join(__dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Instruction {
  op: string;
  args: string;
}

/** Dockerfile instructions per stage, continuation lines joined and comments dropped. */
function stages(text: string): { name?: string; from: string; body: Instruction[] }[] {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const result: { name?: string; from: string; body: Instruction[] }[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { op: op.toUpperCase(), args: args.replace(/\s+/g, ' ') };
    if (instruction.op === 'FROM') {
      const [, from, name] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args) ?? [];
      result.push({ from, name, body: [] });
    } else {
      result[result.length - 1]?.body.push(instruction);
    }
  }
  return result;
}

/** Property names of the validated environment class: every variable the service knows. */
function knownVariables(): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(
    EnvironmentVariables,
    '',
    true,
    false,
  );
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}

/** Variable names of the README's configuration table (docs/api.md §10 plus additions). */
function readmeVariables(): string[] {
  const section = read('README.md').split('## Configuration')[1]?.split('\n## ')[0] ?? '';
  const names = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => line.split('|')[1].match(/`([A-Z0-9_]+)`/g) ?? [])
    .map((name) => name.replace(/`/g, ''));
  return [...new Set(names)].sort();
}

/** "15s", "1m30s", "500ms" → seconds. */
function durationS(value: string): number {
  let total = 0;
  for (const [, n, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(n) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return total;
}

/** The default of a `${VAR:-default}` value, or the literal value. */
function effective(value: string): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?(?::?\?[^}]*)?\}/g, (_m, _v, d = '') =>
    String(d),
  );
}

describe('docker/Dockerfile', () => {
  const dockerfile = read('docker/Dockerfile');
  const all = stages(dockerfile);
  const final = all[all.length - 1];
  const ops = (op: string) => final.body.filter((i) => i.op === op);

  it('is a multi-stage build on a pinned Node 24 (LTS) slim base', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const stage of all) {
      if (all.some((other) => other.name === stage.from)) continue;
      expect(stage.from).toBe('node:24-bookworm-slim');
    }
  });

  it('installs from the lockfile with npm ci and ships no dev dependencies or build tools', () => {
    const build = all.slice(0, -1).flatMap((stage) => stage.body);
    expect(build.some((i) => i.op === 'COPY' && i.args.includes('package-lock.json'))).toBe(true);
    expect(build.some((i) => i.op === 'RUN' && /\bnpm ci\b/.test(i.args))).toBe(true);
    expect(build.some((i) => i.op === 'RUN' && /npm (prune|ci) .*--omit=dev/.test(i.args))).toBe(
      true,
    );
    expect(dockerfile).not.toMatch(/\bnpm (install|i)\b/);
    // The final stage takes built files from the build stage and compiles nothing.
    for (const copy of ops('COPY')) expect(copy.args).toMatch(/^--from=\S+ /);
    for (const run of ops('RUN')) expect(run.args).not.toMatch(/apt-get install|npm ci|g\+\+/);
  });

  it('runs as the non-root node user in production mode', () => {
    const users = ops('USER');
    expect(users.map((i) => i.args)).toEqual(['node']);
    // Nothing runs as root after the switch.
    const switched = final.body.indexOf(users[0]);
    expect(final.body.slice(switched).filter((i) => i.op === 'RUN')).toEqual([]);
    expect(
      ops('ENV')
        .map((i) => i.args)
        .join(' '),
    ).toMatch(/\bNODE_ENV=production\b/);
  });

  it('starts node directly in exec form, so SIGTERM reaches it', () => {
    const cmd = ops('CMD');
    expect(cmd).toHaveLength(1);
    expect(JSON.parse(cmd[0].args)).toEqual(['node', 'dist/main.js']);
    expect(ops('ENTRYPOINT')).toEqual([]);
    const stop = ops('STOPSIGNAL').map((i) => i.args);
    expect(stop.every((signal) => signal === 'SIGTERM')).toBe(true);
  });

  it('has a health check on /health/ready', () => {
    const checks = ops('HEALTHCHECK');
    expect(checks).toHaveLength(1);
    expect(checks[0].args).toMatch(/--interval=\d+s/);
    expect(checks[0].args).toMatch(/ CMD .*\/health\/ready/);
  });

  it('bakes in no secrets', () => {
    const settings = all.flatMap((stage) =>
      stage.body.filter((i) => i.op === 'ENV' || i.op === 'ARG'),
    );
    for (const setting of settings) {
      expect(setting.args).not.toMatch(/SECRET|PASSWORD|TOKEN|PRIVATE|_KEY/i);
    }
    expect(dockerfile).not.toMatch(/COPY\s+(\S+\s+)*\.env\b/);
  });
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim().replace(/\/$/, ''))
    .filter((line) => line !== '' && !line.startsWith('#'));

  it('keeps dependencies, build output, data, secrets and VCS out of the build context', () => {
    for (const pattern of ['node_modules', 'dist', 'data', '.env', '.git', 'coverage']) {
      expect(patterns).toContain(pattern);
    }
    expect(patterns.some((p) => /^\*\.sqlite/.test(p))).toBe(true);
  });

  it('does not ignore what the build needs', () => {
    for (const needed of ['src', 'package.json', 'package-lock.json', 'tsconfig.json']) {
      expect(patterns).not.toContain(needed);
    }
    expect(patterns).not.toContain('*');
  });
});

describe('docker/compose.yaml', () => {
  type Service = {
    image?: string;
    build?: { context: string; dockerfile: string };
    environment?: Record<string, string | number | boolean | null>;
    depends_on?: Record<string, { condition: string }>;
    healthcheck?: { test: string[] | string };
    ports?: string[];
    restart?: string;
    stop_grace_period?: string;
    profiles?: string[];
  };
  const compose = parse(read('docker/compose.yaml')) as { services: Record<string, Service> };
  const { app, db, redis } = compose.services;
  const env = Object.fromEntries(
    Object.entries(app.environment ?? {}).map(([key, value]) => [key, String(value ?? '')]),
  );

  it('has the app, a MariaDB and a Redis, all started by default', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['app', 'db', 'redis']);
    expect(db.image).toMatch(/^mariadb:\d+\.\d+$/);
    expect(redis.image).toMatch(/^redis:\d+/);
    for (const service of [app, db, redis]) expect(service.profiles).toBeUndefined();
  });

  it('builds the app from docker/Dockerfile with the repository root as context', () => {
    expect(app.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile' });
  });

  it('starts the app only once the database and Redis report healthy', () => {
    expect(db.healthcheck?.test).toEqual(expect.arrayContaining(['CMD']));
    expect(redis.healthcheck?.test).toEqual(expect.arrayContaining(['CMD']));
    expect(app.depends_on).toEqual({
      db: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
  });

  it('restarts services and gives the app time to drain on stop', () => {
    for (const service of [app, db, redis]) {
      expect(service.restart).toMatch(/^(unless-stopped|always|on-failure)/);
    }
    const grace = durationS(app.stop_grace_period ?? '');
    expect(grace).toBeGreaterThanOrEqual(10);
    expect(grace).toBeLessThanOrEqual(30);
    // The drain lasts up to REQUEST_TIMEOUT_MS + 1 s (main.ts): it must end before SIGKILL.
    const timeoutS = Number(effective(env.REQUEST_TIMEOUT_MS ?? '30000')) / 1000;
    expect(timeoutS + 1).toBeLessThan(grace);
  });

  it('publishes only the app port', () => {
    expect(app.ports).toEqual(['3000:3000']);
    expect(db.ports).toBeUndefined();
    expect(redis.ports).toBeUndefined();
  });

  it('gives the app only variables the service validates, pointing at db and redis', () => {
    const known = knownVariables();
    expect(known).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL']));
    expect(Object.keys(env).filter((key) => !known.includes(key))).toEqual([]);
    expect(effective(env.DATABASE_URL)).toMatch(/^mysql:\/\/[^@]+@db:3306\/\w+$/);
    expect(env.REDIS_URL).toBe('redis://redis:6379');
  });

  it('lets every documented setting through, except those the image or engine fixes', () => {
    // PORT and NODE_ENV are set in the image, SQLITE_PATH does not apply with DATABASE_URL,
    // read replicas need more database services, the webhook allowances are for development and tests only.
    const fixed = [
      'PORT',
      'NODE_ENV',
      'SQLITE_PATH',
      'DATABASE_READ_URLS',
      'WEBHOOK_ALLOW_HTTP',
      'WEBHOOK_ALLOW_PRIVATE_TARGETS',
      // Read by the OpenTelemetry SDK with its other OTEL_* variables: an operator who traces adds them.
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    ];
    const documented = readmeVariables();
    expect(documented.length).toBeGreaterThan(15);
    expect(documented.filter((name) => !fixed.includes(name) && !(name in env))).toEqual([]);
    // And the defaults the compose file falls back to pass the service's own validation.
    const defaults = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, effective(v)]));
    expect(() =>
      validateEnvironment({ ...defaults, NODE_ENV: 'production', AUTH_JWT_SECRET: 'x'.repeat(48) }),
    ).not.toThrow();
  });

  it('holds no literal secrets: only required variables or obvious dev placeholders', () => {
    expect(env.AUTH_JWT_SECRET).toMatch(/^\$\{AUTH_JWT_SECRET:\?[^}]*\}$/);
    for (const service of Object.values(compose.services)) {
      for (const [key, raw] of Object.entries(service.environment ?? {})) {
        const value = String(raw ?? '');
        if (/SECRET|PASSWORD|TOKEN|PRIVATE|_KEY/.test(key)) {
          // Interpolated, with at most a default that is empty (unset) or says it is for development.
          expect({ key, value }).toEqual({ key, value: expect.stringMatching(/^\$\{/) });
          const fallback = /:-([^}]*)\}/.exec(value)?.[1];
          if (fallback)
            expect({ key, fallback }).toEqual({ key, fallback: expect.stringMatching(/dev/) });
        }
        // Credentials inside URLs are interpolated too.
        const password = /^\w+:\/\/[^:/@]+:([^@]+)@/.exec(value)?.[1];
        if (password !== undefined)
          expect({ key, password }).toEqual({
            key,
            password: expect.stringMatching(/^\$\{[A-Z_]+(:-[^}]*dev[^}]*)?\}$/),
          });
      }
    }
  });
});
