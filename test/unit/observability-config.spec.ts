import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { PinoPretty } from 'pino-pretty';
import { nestLoggerParams, prettyLogs, requestLogger } from '../../src/common/http/logger-options';
import { ConfigurationError, validateEnvironment } from '../../src/config/env.validation';
import { operationOf } from '../../src/database/query-observer';
import { DEFAULT_TRACE_RATIO, requestTraced, samplerOf, tracingEnabled } from '../../src/tracing';

describe('METRICS_TOKEN', () => {
  it('accepts 16 to 256 printable characters and never echoes a bad one', () => {
    expect(() => validateEnvironment({ METRICS_TOKEN: 'a'.repeat(16) })).not.toThrow();
    expect(() => validateEnvironment({ METRICS_TOKEN: 'a'.repeat(256) })).not.toThrow();
    for (const bad of ['a'.repeat(15), 'a'.repeat(257), 'has a space in it ok']) {
      expect(() => validateEnvironment({ METRICS_TOKEN: bad })).toThrow(
        new ConfigurationError(
          'METRICS_TOKEN must be 16 to 256 printable characters without spaces',
        ),
      );
    }
  });
});

describe('tracingEnabled', () => {
  it('is on only with an OTLP endpoint, and off when the SDK or the exporter is turned off', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(
      true,
    );
    expect(
      tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
    expect(
      tracingEnabled({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_TRACES_EXPORTER: 'none',
      }),
    ).toBe(false);
  });
});

describe('samplerOf', () => {
  const rootOf = (env: NodeJS.ProcessEnv) => {
    const text = String(samplerOf(env));
    return (
      /^ParentBased\{root=RequestsChosenOrElse\{(TraceIdRatioBased\{[\d.e-]+\})\}/.exec(
        text,
      )?.[1] ?? text
    );
  };

  it('follows the caller’s traceparent and starts one trace in ten by default', () => {
    expect(DEFAULT_TRACE_RATIO).toBe(0.1);
    expect(rootOf({})).toBe('TraceIdRatioBased{0.1}');
  });

  it('takes OTEL_TRACES_SAMPLER_ARG as the ratio, and the default for a value outside 0..1', () => {
    expect(
      ['0.25', '0', '1', '1.5', '-0.1', 'half', ' '].map((arg) =>
        rootOf({ OTEL_TRACES_SAMPLER_ARG: arg }),
      ),
    ).toEqual([
      'TraceIdRatioBased{0.25}',
      'TraceIdRatioBased{0}',
      'TraceIdRatioBased{1}',
      'TraceIdRatioBased{0.1}',
      'TraceIdRatioBased{0.1}',
      'TraceIdRatioBased{0.1}',
      'TraceIdRatioBased{0.1}',
    ]);
  });

  it('leaves a named OTEL_TRACES_SAMPLER to the SDK', () => {
    expect(samplerOf({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toBeUndefined();
    expect(
      samplerOf({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' }),
    ).toBeUndefined();
  });
});

describe('requestTraced', () => {
  const id = '4bf92f3577b34da6a3ce929d0e0e4736';
  const never = () => 0.99;
  const always = () => 0;

  it('follows a valid traceparent’s sampled flag, whatever the chance', () => {
    expect(requestTraced({ traceparent: `00-${id}-00f067aa0ba902b7-01` }, 0.1, never)).toBe(true);
    expect(requestTraced({ traceparent: `00-${id}-00f067aa0ba902b7-00` }, 0.1, always)).toBe(false);
  });

  it('chooses by the ratio without a traceparent or with an invalid one', () => {
    expect([0.05, 0.1, 0.5].map((r) => requestTraced({}, 0.1, () => r))).toEqual([
      true,
      false,
      false,
    ]);
    const invalid = { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` };
    expect([requestTraced(invalid, 0.1, never), requestTraced(invalid, 0.1, always)]).toEqual([
      false,
      true,
    ]);
  });
});

describe('operationOf', () => {
  it('names a statement by its first keyword, a handful of values only', () => {
    expect(
      [
        'SELECT 1',
        '  select * from events',
        'WITH x AS (SELECT 1) SELECT * FROM x',
        'INSERT INTO t VALUES (?)',
        'UPDATE t SET a = ?',
        'DELETE FROM t',
        'START TRANSACTION',
        'BEGIN TRANSACTION',
        'COMMIT',
        'ROLLBACK',
        'SAVEPOINT typeorm_1',
        'PRAGMA foreign_keys = ON',
        '(SELECT 1) UNION (SELECT 2)',
        '',
      ].map(operationOf),
    ).toEqual([
      'select',
      'select',
      'select',
      'insert',
      'update',
      'delete',
      'transaction',
      'transaction',
      'transaction',
      'transaction',
      'transaction',
      'other',
      'other',
      'other',
    ]);
  });
});

describe('log format', () => {
  it('is readable lines on a terminal and JSON elsewhere', () => {
    expect(prettyLogs({ isTTY: true })).toBe(true);
    expect(prettyLogs({ isTTY: false })).toBe(false);
    expect(prettyLogs({})).toBe(false);
    const streamOf = (logger: pino.Logger) =>
      (logger as unknown as Record<symbol, Writable>)[pino.symbols.streamSym];
    expect(streamOf(requestLogger('info', false).logger)).toBe(process.stdout);
    const pretty = streamOf(requestLogger('info', true).logger);
    expect(pretty).not.toBe(process.stdout);
    expect(typeof pretty.write).toBe('function');
  });

  it("gives Nest's logger the request logger's root logger and no per-request middleware", () => {
    const requests = requestLogger('warn', false);
    expect(nestLoggerParams(requests)).toEqual({
      pinoHttp: { logger: requests.logger },
      useExisting: true,
      forRoutes: [],
    });
    expect(requests.logger.level).toBe('warn');
  });

  describe('request lines', () => {
    /**
     * The lines `requestLogger(level)` writes for responses with these statuses, parsed;
     * an Error is a response (status 200) whose stream fails with it.
     */
    function linesFor(
      level: string,
      statuses: Array<number | Error>,
    ): Array<Record<string, unknown>> {
      const lines: Array<Record<string, unknown>> = [];
      const middleware = requestLogger(level, false, {
        write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
      });
      for (const [i, outcome] of statuses.entries()) {
        const statusCode = outcome instanceof Error ? 200 : outcome;
        const req = Object.assign(new EventEmitter(), {
          id: `r-${i}`,
          method: 'POST',
          url: '/calendar/events/v1/events?password=secret',
          headers: { authorization: 'Bearer secret' },
          socket: {},
        });
        const res = Object.assign(new EventEmitter(), {
          statusCode,
          headersSent: true,
          writableEnded: true,
          getHeaders: () => ({}),
        });
        middleware(req as unknown as IncomingMessage, res as unknown as ServerResponse, () => {});
        if (outcome instanceof Error) res.emit('error', outcome);
        res.emit('finish');
        res.emit('close');
      }
      // What differs from line to line (times, the process, where the error was made) is left out.
      return lines.map(({ time: _time, responseTime, pid: _pid, hostname: _host, ...line }) => {
        expect(typeof responseTime).toBe('number');
        if (!line.err) return line;
        const { stack, ...err } = line.err as { stack: string };
        expect(stack).toMatch(/^Error: /);
        return { ...line, err };
      });
    }

    it('at info, is one line per response', () => {
      const lines = linesFor('info', [201, 404, 503]);
      expect(lines.map((line) => [line.level, line.msg, line.res])).toEqual([
        [30, 'request completed', { statusCode: 201 }],
        [30, 'request completed', { statusCode: 404 }],
        [50, 'request errored', { statusCode: 503 }],
      ]);
    });

    it("above info, is pino-http's line of each failed response and nothing else", () => {
      const [, , errored, erroredToo] = linesFor('info', [201, 404, 503, 500]);
      expect(linesFor('warn', [201, 404, 503, 500])).toEqual([errored, erroredToo]);
      expect(erroredToo).toMatchObject({ res: { statusCode: 500 } });
      expect(errored).toMatchObject({
        level: 50,
        msg: 'request errored',
        req: { id: 'r-2', method: 'POST', url: '/calendar/events/v1/events' },
        res: { statusCode: 503 },
        err: { type: 'Error', message: 'failed with status code 503' },
      });
      expect(linesFor('error', [201, 404, 503])).toEqual([errored]);
      expect(linesFor('fatal', [503, 500])).toEqual([]);
      expect(linesFor('silent', [503])).toEqual([]);
    });

    it('above info, also has the line of a response whose stream failed, with its error', () => {
      const failure = () => new Error('socket gone');
      const [, errored] = linesFor('info', [201, failure()]);
      expect(errored).toMatchObject({
        level: 50,
        msg: 'request errored',
        req: { id: 'r-1' },
        err: { type: 'Error', message: 'socket gone' },
      });
      expect(linesFor('warn', [201, failure()])).toEqual([errored]);
    });
  });

  it('prints the same fields on one readable line', () => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        out += chunk.toString();
        done();
      },
    });
    const logger = pino(
      { level: 'info' },
      PinoPretty({
        singleLine: true,
        colorize: false,
        ignore: 'pid,hostname',
        destination: sink,
        sync: true,
      }),
    );
    logger.info(
      { req: { id: 'r-1', method: 'GET', url: '/x' }, res: { statusCode: 200 } },
      'request completed',
    );
    expect(out).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed \{"req":\{"id":"r-1","method":"GET","url":"\/x"\},"res":\{"statusCode":200\}\}\n$/,
    );
  });
});
