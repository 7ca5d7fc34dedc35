import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** The only hosts the bench talks to. */
export const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * One request over node:http, with a Host header of our choice (fetch may
 * not set one) and a hard time limit.
 */
export function sendRaw(options: {
  port: number;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method,
        path: options.path,
        headers: {
          ...(options.body !== undefined
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(options.body)) }
            : {}),
          ...options.headers,
        },
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${options.method} ${options.path}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Polls until `ready` answers true, at most `timeoutMs`; throws with the last error otherwise. */
export async function waitUntil(
  what: string,
  ready: () => Promise<boolean>,
  timeoutMs: number,
  alive: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let attempt = 0; Date.now() < deadline && attempt < 10_000; attempt++) {
    if (!alive()) throw new Error(`${what} exited before it was ready`);
    try {
      if (await ready()) return;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
}
