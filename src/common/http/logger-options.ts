import { RequestMethod } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { Options } from 'pino-http';
import type { PinoPretty as PinoPrettyFactory } from 'pino-pretty';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type WithId = IncomingMessage & { id?: string };

/**
 * The first middleware: every response carries X-Request-Id, echoing a valid
 * incoming one or a new UUID; logs use the same ID.
 */
export function assignRequestId(req: WithId, res: ServerResponse, next: () => void): void {
  const incoming = req.headers['x-request-id'];
  req.id =
    typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', req.id);
  next();
}

/**
 * Readable lines (pino-pretty) when stdout is a terminal, as for a newcomer's
 * `npm start`; JSON lines otherwise (containers, files, log shippers).
 */
export function prettyLogs(stdout: { isTTY?: boolean } = process.stdout): boolean {
  return stdout.isTTY === true;
}

/** Loaded only for a terminal: a service logging JSON keeps none of it in memory. */
function prettyStream(): typeof PinoPrettyFactory {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('pino-pretty') as { PinoPretty: typeof PinoPrettyFactory }).PinoPretty;
}

/**
 * Structured logs, JSON or (`pretty`) one readable line each with the same
 * fields. Authorization headers, cookies and query strings are never logged.
 */
export function loggerOptions(level: string, pretty = prettyLogs()): Params {
  const options: Options = {
    level,
    genReqId: (req) => (req as WithId).id ?? randomUUID(),
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        // Query strings can carry event passwords: log the path only.
        url: req.url?.split('?')[0],
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  };
  return {
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
    pinoHttp: pretty
      ? [
          options,
          prettyStream()({
            singleLine: true,
            translateTime: 'SYS:HH:MM:ss.l',
            ignore: 'pid,hostname',
            sync: true,
          }),
        ]
      : options,
  };
}
