import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { createTestApp, TestApp } from './test-app';
import { AddressInfo } from 'node:net';

/** One message as the receiver got it. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** Requests (to any path) still waiting for their answer when this one arrived. */
  concurrent: number;
}

/** How the receiver answers one request: a status, a body, a delay, or hanging up. */
export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  /** With `delayMs`: answered as soon as this settles, or after `delayMs` at the latest. */
  until?: Promise<unknown>;
}

/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: it records every
 * request and answers each path with the next planned answer (else 200 "ok").
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly plans = new Map<string, Answer[]>();
  private readonly defaults = new Map<string, Answer>();
  private readonly open = new Set<ServerResponse>();
  private readonly openByPath = new Map<string, number>();
  private readonly peaks = new Map<string, number>();
  private server: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
          concurrent: this.open.size,
        });
        const answer = this.plans.get(path)?.shift() ?? this.defaults.get(path) ?? {};
        this.open.add(res);
        const openHere = (this.openByPath.get(path) ?? 0) + 1;
        this.openByPath.set(path, openHere);
        this.peaks.set(path, Math.max(this.peaks.get(path) ?? 0, openHere));
        // Counted as closed once the answer is written: the sender may open its next
        // request as soon as it reads the answer, before this socket's 'close' fires.
        let closed = false;
        const close = () => {
          if (closed) return;
          closed = true;
          this.open.delete(res);
          this.openByPath.set(path, (this.openByPath.get(path) ?? 1) - 1);
        };
        res.on('close', close);
        const respond = () => {
          close();
          if (res.destroyed) return;
          res.writeHead(answer.status ?? 200, answer.headers ?? { 'content-type': 'text/plain' });
          res.end(answer.body ?? 'ok');
        };
        const timer = setTimeout(respond, answer.delayMs ?? 0);
        void answer.until?.finally(() => {
          clearTimeout(timer);
          respond();
        });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The next answers for `path`, in order; then `otherwise` (default 200 "ok"). */
  plan(path: string, answers: Answer[], otherwise?: Answer): void {
    this.plans.set(path, [...answers]);
    if (otherwise) this.defaults.set(path, otherwise);
    else this.defaults.delete(path);
  }

  /** The most requests to `path` that were waiting for their answers at once. */
  peak(path: string): number {
    return this.peaks.get(path) ?? 0;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Waits until `path` got at least `count` requests (and returns them). */
  async waitFor(path: string, count: number, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.on(path).length < count) {
      if (Date.now() > deadline) {
        throw new Error(
          `${path} got ${this.on(path).length} of ${count} requests in ${timeoutMs} ms`,
        );
      }
      await sleep(10);
    }
    return this.on(path);
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds for its value (or fails after `timeoutMs`). */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await sleep(20);
  }
}

export interface WebhookTestContext {
  t: TestApp;
  receiver: WebhookReceiver;
  /** The administrator's Authorization header. */
  admin: () => Record<string, string>;
}

/**
 * The suite's app (plain HTTP allowed, plus `env`) and a receiver, started
 * before its tests and stopped after them; tables emptied before each test.
 */
export function useWebhookApp(env: Record<string, string>): WebhookTestContext {
  const ctx = {} as WebhookTestContext;
  ctx.admin = () => ({ Authorization: ctx.t.auth.administrator });
  beforeAll(async () => {
    ctx.receiver = await new WebhookReceiver().start();
    ctx.t = await createTestApp({ WEBHOOK_ALLOW_HTTP: 'true', ...env });
  });
  afterAll(async () => {
    await ctx.t?.close();
    await ctx.receiver?.stop();
  });
  beforeEach(() => ctx.t.reset());
  return ctx;
}
