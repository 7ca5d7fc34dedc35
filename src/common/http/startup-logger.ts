import type { LoggerService } from '@nestjs/common';

/** Nest's start-up chatter, one line per module and route: debug, not info. */
const CHATTY = new Set(['InstanceLoader', 'RouterExplorer']);

/**
 * The application logger with a readable start-up: the module and route
 * lines go to debug, so the administrator token and the "listening on" line
 * are on the first screen. RoutesResolver's controller lines are left out:
 * they name the global prefix even for excluded routes (health lives at the
 * root), and RouterExplorer's "Mapped {path, method}" lines carry the real paths.
 */
export class StartupLogger implements LoggerService {
  constructor(private readonly logger: LoggerService) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    if (context === 'RoutesResolver') return;
    if (typeof context === 'string' && CHATTY.has(context)) {
      this.logger.debug?.(message, ...params);
      return;
    }
    this.logger.log(message, ...params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.logger.error(message, ...params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.logger.warn(message, ...params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.logger.debug?.(message, ...params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.logger.verbose?.(message, ...params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.logger.fatal?.(message, ...params);
  }
}
