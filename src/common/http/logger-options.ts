import { RequestMethod } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';

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

/** Structured JSON logs. Authorization headers, cookies and query strings are never logged. */
export function loggerOptions(level: string): Params {
  return {
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
    pinoHttp: {
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
    },
  };
}
