import type { IncomingMessage, Server } from 'node:http';
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { RequestDoor } from '../../src/tracing-door';

type Emit = (this: unknown, ...args: unknown[]) => boolean;

describe('RequestDoor', () => {
  // As src/tracing.ts does: the async-local context manager, so `context.with` holds.
  beforeAll(() => new NodeTracerProvider().register());
  afterAll(() => {
    context.disable();
    trace.disable();
    propagation.disable();
  });

  /** A stand-in for http.Server whose emit the instrumentation has wrapped (shimmer's __original). */
  function instrumentedServer(door: RequestDoor) {
    const calls: string[] = [];
    const plain: Emit = function (event) {
      const suppressed = isTracingSuppressed(context.active());
      calls.push(`plain ${String(event)}${suppressed ? ' suppressed' : ''}`);
      return true;
    };
    const instrumented: Emit & { __original?: Emit } = function (event) {
      // The instrumentation asks its ignoreIncomingRequestHook first.
      calls.push(`instrumented ${String(event)} ${door.ignore() ? 'ignored' : 'span'}`);
      return true;
    };
    instrumented.__original = plain;
    const server = { prototype: { emit: instrumented } } as unknown as typeof Server;
    return {
      server,
      calls,
      emit: (...args: unknown[]) => (server.prototype.emit as Emit)(...args),
    };
  }

  const request = (headers: Record<string, string>) => ({ headers }) as IncomingMessage;

  it('hands a chosen request to the instrumentation, and one not chosen without a body around it', () => {
    const door = new RequestDoor((req) => req.headers['x-choose'] === 'yes');
    const { server, calls, emit } = instrumentedServer(door);
    expect(door.install(server)).toBe(true);
    emit('request', request({ 'x-choose': 'yes' }), {});
    emit('request', request({}), {});
    emit('request', request({ 'content-length': '0' }), {});
    emit('request', request({ 'content-length': '12' }), {});
    emit('request', request({ 'transfer-encoding': 'chunked' }), {});
    emit('connection', {});
    expect(calls).toEqual([
      'instrumented request span',
      'plain request suppressed',
      'plain request suppressed',
      // With a body: the instrumentation's pass-by (it binds req/res), told to make no span.
      'instrumented request ignored',
      'instrumented request ignored',
      'plain connection',
    ]);
    expect(isTracingSuppressed(context.active())).toBe(false);
    expect(context.active()).toBe(ROOT_CONTEXT);
  });

  it('admits nothing when the instrumentation has not patched emit', () => {
    const door = new RequestDoor(() => true);
    const emit = jest.fn(() => true);
    const server = { prototype: { emit } } as unknown as typeof Server;
    expect(door.install(server)).toBe(false);
    expect(server.prototype.emit).toBe(emit);
    expect(door.ignore()).toBe(true);
  });
});
