import { createHmac } from 'node:crypto';
import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { signals, type WebhookOutcome } from '../metrics/signals';
import {
  hostOf,
  pinnedLookup,
  requestProblem,
  TargetNotAllowedError,
} from '../common/net/target-safety';

/** The receiver's answer is kept up to this many bytes (docs/api.md §15). */
export const MAX_RESPONSE_BYTES = 1024;

export interface AttemptResult {
  /** The HTTP status, when an answer came. */
  statusCode: number | null;
  /** The first KiB of the answer's body. */
  response: string | null;
  /** Why no answer came (time-out, refused target, connection error). */
  error: string | null;
  /**
   * Not sent by policy (a private address, plain http:// while not allowed,
   * not an http(s) URL): retrying soon cannot change it, so the delivery fails at once.
   */
  refused?: true;
}

export interface PostOptions {
  timeoutMs: number;
  allowHttp: boolean;
  allowPrivateTargets: boolean;
}

/** Why an attempt to a plain http:// endpoint is not made (WEBHOOK_ALLOW_HTTP turned off since). */
export const HTTP_NOT_ALLOWED = 'plain http:// is not allowed (WEBHOOK_ALLOW_HTTP is off)';

// Keep-alive pools: a connection, once opened to a checked address, is reused.
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxFreeSockets: 16 }),
  'https:': new HttpsAgent({ keepAlive: true, maxFreeSockets: 16 }),
};

/**
 * One attempt at a delivery: signs its message per Standard Webhooks as of
 * `attemptedAt` and POSTs it (postMessage). Never throws: a secret that
 * cannot sign is an attempt that failed with its error.
 */
export async function postDelivery(
  delivery: { url: string; secret: string; webhook_id: string; body: string },
  attemptedAt: Date,
  options: PostOptions,
): Promise<AttemptResult> {
  try {
    const signature = signMessage(delivery.secret, delivery.webhook_id, attemptedAt, delivery.body);
    return await postMessage(
      delivery.url,
      {
        'content-type': 'application/json',
        'user-agent': 'calendar-events-webhooks/1',
        'webhook-id': delivery.webhook_id,
        'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
        'webhook-signature': signature,
      },
      delivery.body,
      options,
    );
  } catch (error) {
    return { statusCode: null, response: null, error: (error as Error).message.slice(0, 255) };
  }
}

/** What a Standard Webhooks secret starts with; the rest is its key in base64. */
const SECRET_PREFIX = 'whsec_';

/**
 * A message's Standard Webhooks signature: `v1,` and the base64 of
 * HMAC-SHA256, keyed with the secret's base64 part, over
 * `<webhook-id>.<webhook-timestamp>.<body>` (UTF-8). Node's native HMAC: the
 * standardwebhooks library hashes in JavaScript (fast-sha256), six to eight
 * times the CPU per message (docs/decisions.md); the tests verify with it.
 */
export function signMessage(secret: string, id: string, at: Date, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  if (key.length === 0) throw new Error("Secret can't be empty.");
  const timestamp = Math.floor(at.getTime() / 1000);
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body);
  return `v1,${mac.digest('base64')}`;
}

/**
 * POSTs one signed message. Never throws; never follows a redirect (a 3xx is
 * just a non-2xx answer); gives up after `timeoutMs` in all (connect, send and
 * read); reads at most MAX_RESPONSE_BYTES of the answer.
 */
export async function postMessage(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const result = await postWithRetryOnStaleSocket(target, headers, body, options);
  signals.webhookAttempt(outcomeOf(result), (performance.now() - started) / 1000);
  return result;
}

async function postWithRetryOnStaleSocket(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<AttemptResult> {
  const started = Date.now();
  const first = await postOnce(target, headers, body, options);
  // A kept-alive connection the receiver closed just as it was reused: the request never
  // reached it (Node's documented race). Sent once more on a new connection, in the same attempt.
  if (!first.staleSocket) return first.result;
  const left = options.timeoutMs - (Date.now() - started);
  if (left <= 0) return first.result;
  return (await postOnce(target, headers, body, { ...options, timeoutMs: left }, true)).result;
}

function outcomeOf(result: AttemptResult): WebhookOutcome {
  if (result.statusCode === null) return 'unreachable';
  return result.statusCode >= 200 && result.statusCode < 300 ? 'delivered' : 'rejected';
}

function postOnce(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
  fresh = false,
): Promise<{ result: AttemptResult; staleSocket: boolean }> {
  const failure = (error: string): AttemptResult => ({ statusCode: null, response: null, error });
  const refusal = (error: string): AttemptResult => ({ ...failure(error), refused: true });
  const done = (result: AttemptResult) => ({ result, staleSocket: false });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve(done(refusal('invalid URL')));
  }
  // Checked at every attempt, like the address: the setting may have been turned off since registration.
  const problem = requestProblem(url, options);
  if (problem === 'http') return Promise.resolve(done(refusal(HTTP_NOT_ALLOWED)));
  if (problem === 'scheme') return Promise.resolve(done(refusal('invalid URL')));
  if (problem === 'private') {
    return Promise.resolve(done(refusal(new TargetNotAllowedError(hostOf(url)).message)));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(url, {
      method: 'POST',
      agent: fresh ? false : agents[url.protocol as 'http:' | 'https:'],
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      ...pinnedLookup(options),
    });
    let settled = false;
    let answered = false;
    const timer = setTimeout(() => {
      req.destroy();
      failed(`no answer within ${options.timeoutMs} ms`);
    }, options.timeoutMs);
    const finish = (result: AttemptResult, staleSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ result, staleSocket });
    };
    const failed = (error: string) => finish(failure(error));

    req.on('response', (res: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish({
          statusCode: res.statusCode ?? 0,
          response: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'),
          error: null,
        });
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // Enough: the rest is not read, and the connection is not reused.
        if (size >= MAX_RESPONSE_BYTES) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && !answered && error.code === 'ECONNRESET';
      // A name that resolved only to internal addresses is refused; one that did not resolve is not (DNS may recover).
      finish(
        error instanceof TargetNotAllowedError ? refusal(error.message) : failure(describe(error)),
        stale,
      );
    });
    req.end(body);
  });
}

function describe(error: NodeJS.ErrnoException): string {
  const text = error.code ? `${error.code}: ${error.message}` : error.message;
  return text.slice(0, 255);
}
