import { INestApplication, Logger } from '@nestjs/common';
import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';

/** How long connections already open may still deliver a request after the signal. */
const IDLE_GRACE_MS = 500;
const TICK_MS = 25;

/**
 * SIGTERM/SIGINT as an orchestrator sends them:
 * 1. stop listening at once (new connections are refused);
 * 2. serve what already reached open connections, every answer now closing its
 *    connection, until no request has been running for two ticks and at least
 *    IDLE_GRACE_MS have passed (at most `drainTimeoutMs`);
 * 3. close the idle connections, then the application (database pool, Redis),
 *    and exit with 0 (1 if requests had to be cut).
 *
 * Nest's own shutdown hooks are not enough: Node's http `server.close()` drops
 * every connection it deems idle, including those whose request is already
 * on its way, and reports the server closed while requests are still running,
 * so Nest would close the database under them and end the process mid-response.
 */
export function enableGracefulShutdown(
  app: INestApplication,
  options: {
    drainTimeoutMs: number;
    signals?: NodeJS.Signals[];
    /** Runs once the application is closed (e.g. to send the last spans). */
    afterClose?: () => Promise<void>;
  },
): void {
  const logger = new Logger('Shutdown');
  const server = app.getHttpServer() as Server;
  const inFlight = new Set<ServerResponse>();
  let stopping = false;

  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    if (stopping) res.shouldKeepAlive = false;
    res.on('close', () => inFlight.delete(res));
  });

  const stop = async (signal: NodeJS.Signals): Promise<number> => {
    logger.log(`${signal} received: draining ${inFlight.size} request(s) in flight`);
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    // Connections the kernel accepted just before the signal are taken over by
    // Node within a tick or two; closing the listener earlier would reset them.
    for (let i = 0; i < 2; i++) await sleep(TICK_MS);
    // net.Server's close only stops listening; http.Server's would also drop idle connections.
    NetServer.prototype.close.call(server);
    const started = Date.now();
    const deadline = started + options.drainTimeoutMs;
    let quietTicks = 0;
    while (Date.now() < deadline) {
      await sleep(TICK_MS);
      // Between two ticks the event loop reads every socket with data waiting.
      quietTicks = inFlight.size === 0 ? quietTicks + 1 : 0;
      if (quietTicks >= 2 && Date.now() - started >= IDLE_GRACE_MS) break;
    }
    const cut = inFlight.size;
    if (cut > 0) logger.warn(`${cut} request(s) still running after ${options.drainTimeoutMs} ms`);
    server.closeIdleConnections();
    await app.close();
    await options.afterClose?.().catch(() => undefined);
    logger.log('stopped');
    return cut > 0 ? 1 : 0;
  };

  for (const signal of options.signals ?? ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      stop(signal).then(
        (code) => process.exit(code),
        (error: unknown) => {
          logger.error(`shutdown failed: ${(error as Error).message}`);
          process.exit(1);
        },
      );
    });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
