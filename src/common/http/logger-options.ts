import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { DestinationStream, Logger } from 'pino';
import { pinoHttp, type HttpLogger, type Options } from 'pino-http';
import type { PinoPretty as PinoPrettyFactory } from 'pino-pretty';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type WithId = IncomingMessage & { id?: string };
/** As pino-http's middleware: `next` is optional in its type. */
type RequestHandler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void;

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

/** The provider token of the request logger (requestLogger's middleware). */
export const REQUEST_LOGGER = Symbol('REQUEST_LOGGER');

/**
 * Structured logs, JSON or (`pretty`) one readable line each with the same
 * fields: an Express middleware that logs each response, whose `logger` is the
 * root logger (writing to `destination`, stdout by default). Authorization
 * headers, cookies and query strings are never logged.
 */
export function requestLogger(
  level: string,
  pretty = prettyLogs(),
  destination?: DestinationStream,
): HttpLogger {
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
    customLogLevel: (_req, res, err) => requestLevel(res, err),
  };
  const stream = pretty
    ? prettyStream()({
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
        sync: true,
      })
    : destination;
  const http = stream ? pinoHttp(options, stream) : pinoHttp(options);
  if (http.logger.isLevelEnabled('info')) return http;
  return Object.assign(failedRequestLines(http.logger), { logger: http.logger });
}

/** A request line's level: `error` for a failed response (an error, or a status of 500 or more). */
function requestLevel(res: ServerResponse, err: Error | undefined): 'error' | 'info' {
  return err || res.statusCode >= 500 ? 'error' : 'info';
}

/**
 * The request lines at a level above `info`, where only a failed response
 * (an error, or a status of 500 or more) has one: pino-http's line at
 * `error`, written through its logger (so the same serializers and
 * redaction), without pino-http's child logger of the serialized request,
 * which it builds for every request (about 3 % of a create's instructions,
 * docs/performance.md) and no line at that level would use.
 */
function failedRequestLines(logger: Logger): RequestHandler {
  if (!logger.isLevelEnabled('error')) return (_req, _res, next) => next?.();
  return (req, res, next) => {
    const started = Date.now();
    const finished = (err?: Error) => {
      res.off('close', finished);
      res.off('finish', finished);
      res.off('error', finished);
      if (requestLevel(res, err) !== 'error') return;
      logger.error(
        {
          req,
          res,
          err: err ?? new Error(`failed with status code ${res.statusCode}`),
          responseTime: Date.now() - started,
        },
        'request errored',
      );
    };
    res.on('close', finished);
    res.on('finish', finished);
    res.on('error', finished);
    next?.();
  };
}

/**
 * nestjs-pino as Nest's logger, writing through the request logger's root
 * logger, without its per-request middleware: that middleware only binds
 * `req.log` in an AsyncLocalStorage, which on Node 20 puts hooks on every
 * promise (8 % of a create's main-thread instructions, docs/performance.md).
 * The request line is requestLogger's; a log call inside a request names the
 * request ID itself (ApiExceptionFilter does).
 */
export function nestLoggerParams(requests: HttpLogger): Params {
  return { pinoHttp: { logger: requests.logger }, useExisting: true, forRoutes: [] };
}
