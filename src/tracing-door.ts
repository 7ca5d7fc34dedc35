/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
import type { IncomingMessage, Server } from 'node:http';

type Emit = (this: Server, ...args: unknown[]) => boolean;

/**
 * Which incoming requests get a span, decided once as each arrives, in front
 * of the HTTP instrumentation (src/tracing.ts). A request chosen goes through
 * the instrumentation, which records its span. One not chosen and without a
 * body (no Content-Length or Transfer-Encoding: lists, reads, probes) skips
 * the instrumentation: it runs in one context with tracing suppressed, so no
 * span is started under it, and nothing is bound to its `req` and `res` (the
 * instrumentation's pass-by patches eight listener methods on each and wraps
 * every listener added later). One not chosen with a body takes that pass-by:
 * its `data`/`end`/`close` listeners must run in the suppressed context, or
 * the statements its handler runs from them would start traces of their own.
 */
export class RequestDoor {
  /** Set while a chosen request is handed to the instrumentation, read by its hook. */
  private admitted = false;

  constructor(private readonly chosen: (req: IncomingMessage) => boolean) {}

  /** The instrumentation's ignoreIncomingRequestHook: a span only for what the door admitted. */
  readonly ignore = (): boolean => {
    const admitted = this.admitted;
    this.admitted = false;
    return !admitted;
  };

  /**
   * Wraps the instrumented `http.Server.prototype.emit`. False (and nothing
   * changed) when the instrumentation has not patched it: then its hook,
   * `ignore`, passes every request by.
   */
  install(server: typeof Server): boolean {
    const prototype = server.prototype as unknown as { emit: Emit };
    const instrumented = prototype.emit;
    const plain = (instrumented as Emit & { __original?: Emit }).__original;
    if (typeof plain !== 'function') return false;
    const { ROOT_CONTEXT, context } =
      require('@opentelemetry/api') as typeof import('@opentelemetry/api');
    const { suppressTracing } =
      require('@opentelemetry/core') as typeof import('@opentelemetry/core');
    const untraced = suppressTracing(ROOT_CONTEXT);
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the wrapper's `this` is the server
    const door = this;
    prototype.emit = function doorEmit(this: Server, ...args: unknown[]): boolean {
      if (args[0] !== 'request') return plain.apply(this, args);
      const req = args[1] as IncomingMessage;
      if (!door.chosen(req)) {
        if (bodiless(req)) return context.with(untraced, plain, this, ...args);
        return instrumented.apply(this, args);
      }
      door.admitted = true;
      try {
        return instrumented.apply(this, args);
      } finally {
        door.admitted = false;
      }
    };
    return true;
  }
}

function bodiless(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined;
}
