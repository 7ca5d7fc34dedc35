/* eslint-disable @typescript-eslint/no-require-imports -- the load this module exists for */
import { withDeferredDateFormats } from './common/runtime/deferred-date-formats';

/**
 * Loads `@nestjs/common` (and its loggers' date formatters) once, before
 * anything else requires it, with those formatters built on first use:
 * main.ts imports this third, after the V8 settings and tracing.
 */
withDeferredDateFormats(() => require('@nestjs/common'));
