import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request } from 'express';
import { EventEmitter } from 'node:events';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AuthUser } from '../auth/auth-user';
import type { VerifiedCallerRequest } from '../auth/auth.guard';
import type { WriteRequest, WriteRequestHolder } from '../common/http/write-request';
import type { CountedRequest } from '../common/limits/operation-rate-limit';
import { appConfig } from '../config/app.config';
import type { BatchMethod, OperationHeader } from './dto/batch-request.dto';

/** One operation as the batch checked it. */
export interface OperationRequest {
  method: BatchMethod;
  /** Under {api}, with its query (batch-paths.ts). */
  path: string;
  body?: Record<string, unknown>;
  /** Its own request headers, by lower-case name. */
  headers: Partial<Record<OperationHeader, string>>;
  /** Its rate-limit hit was counted already (a bulk run that fell back, BulkCreates). */
  counted?: boolean;
}

/** What an operation answered. */
export interface OperationAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}

/** Headers of the batch request every operation carries, as a request of the same client. */
const CALLER_HEADERS = [
  'host',
  'authorization',
  'accept-language',
  'user-agent',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
];

/** Headers of an answer a client needs (docs/api.md §18); the rest describe the transport. */
export const ANSWER_HEADERS = [
  'etag',
  'location',
  'last-modified',
  'content-location',
  'retry-after',
  'www-authenticate',
  'idempotency-replayed',
];

/**
 * Runs one operation of a batch through the application's own HTTP stack,
 * in process: the same middleware, guards (rate limit, token), pipes,
 * interceptors (idempotency, version bumps), controller and error filter as
 * the route alone, on a request built from the operation and the batch's
 * caller headers. The parsed body is handed over as `req.body` (the body
 * parsers skip a request whose socket is not readable), and the answer is
 * collected from the response's `write`/`end`.
 *
 * Not light-my-request: on an Express app it re-parents Express's shared
 * request and response prototypes, which breaks every real request of the
 * process after the first injection (fastify/help#476, light-my-request#333).
 */
@Injectable()
export class OperationDispatcher {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
  ) {}

  /**
   * Answers `operation` as its route would for the batch's caller (`from`,
   * whose token named `caller`: the guard does not verify it again for each
   * operation); `write` is the operation's WriteRequest as the batch starts
   * it (an atomic batch's transaction), which the interceptors then fill in.
   */
  dispatch(
    operation: OperationRequest,
    from: Request,
    caller: AuthUser,
    write: WriteRequest,
  ): Promise<OperationAnswer> {
    const req = this.requestFor(operation, from) as IncomingMessage &
      WriteRequestHolder &
      VerifiedCallerRequest &
      CountedRequest;
    req.writeRequest = write;
    if (operation.counted) req.rateCounted = true;
    const authorization = from.headers.authorization;
    if (authorization !== undefined) req.verifiedCaller = { authorization, user: caller };
    const handle =
      this.adapterHost.httpAdapter.getInstance<
        (req: IncomingMessage, res: ServerResponse) => void
      >();
    return new Promise((resolve) => {
      const res = new ServerResponse(req);
      collectAnswer(res, resolve);
      handle(req, res);
    });
  }

  private requestFor(operation: OperationRequest, from: Request): IncomingMessage {
    // The batch's client address and scheme, for the rate limit and the URLs records carry.
    const socket = Object.assign(new EventEmitter(), {
      remoteAddress: from.socket.remoteAddress,
      remotePort: from.socket.remotePort,
      encrypted: (from.socket as { encrypted?: boolean }).encrypted === true,
      readable: false,
      writable: false,
      // Nothing to close: what would end a connection (a late error) has nothing to end.
      destroy: () => undefined,
    });
    const req = new IncomingMessage(socket as never);
    const headers: IncomingHttpHeaders = {};
    for (const name of CALLER_HEADERS) {
      const value = from.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    Object.assign(headers, operation.headers);
    if (operation.body !== undefined) headers['content-type'] = 'application/json';
    req.method = operation.method;
    req.url = `${this.config.apiPath}${operation.path}`;
    req.headers = headers;
    req.rawHeaders = Object.entries(headers).flatMap(([name, value]) => [name, String(value)]);
    req.httpVersion = '1.1';
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    req.complete = true;
    (req as IncomingMessage & { body?: unknown }).body = operation.body;
    req.push(null);
    return req;
  }
}

/** Collects what the stack writes to `res`, and resolves with it when it ends. */
function collectAnswer(res: ServerResponse, resolve: (answer: OperationAnswer) => void): void {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string')
      chunks.push(
        Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
      );
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
    keep(chunk, encoding);
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
    if (res.writableEnded) return res;
    if (typeof chunk !== 'function') keep(chunk, encoding);
    // Marks the headers sent, as a real end would (later setHeader calls throw, headersSent holds).
    if (!res.headersSent) res.writeHead(res.statusCode);
    res.finished = true;
    const done = [chunk, encoding, callback].find((arg) => typeof arg === 'function');
    resolve({
      status: res.statusCode,
      headers: answerHeaders(res),
      body: parseBody(res, Buffer.concat(chunks)),
    });
    res.emit('prefinish');
    res.emit('finish');
    res.emit('close');
    if (done) process.nextTick(done as () => void);
    return res;
  }) as ServerResponse['end'];
}

function answerHeaders(res: ServerResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ANSWER_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}

/** The answer's JSON body; null when it had none (204) or it was not JSON (never for these routes). */
function parseBody(res: ServerResponse, bytes: Buffer): Record<string, unknown> | null {
  const type = String(res.getHeader('content-type') ?? '');
  if (bytes.length === 0 || !type.includes('json')) return null;
  try {
    const body = JSON.parse(bytes.toString('utf8')) as unknown;
    return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
