import { startTracing, type Tracing } from './tracing';

/**
 * Imported by main.ts before anything else it loads (its side effect must
 * come first: the instrumentations patch modules as they are required).
 */
export const tracing: Tracing | undefined = startTracing();
