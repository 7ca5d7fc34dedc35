/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
import type { IncomingMessage } from 'node:http';
import type { Context, SpanKind } from '@opentelemetry/api';
import type { Sampler, SamplingResult } from '@opentelemetry/sdk-trace-base';
import { RequestDoor } from './tracing-door';

/**
 * OpenTelemetry traces, off unless an OTLP endpoint is configured
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; the
 * other standard OTEL_* variables apply: service name, headers, sampler,
 * batching, compression). main.ts imports this first: the instrumentations
 * patch http, express, mysql2 and ioredis as they are required, so nothing
 * of those may be loaded before. Off, nothing of the SDK is loaded.
 *
 * Spans: each sampled HTTP request (its X-Request-Id as
 * `http.response.header.x-request-id`, a W3C `traceparent` continued),
 * its Express route, mysql2 statements (SQLite: QueryObserver), Redis
 * commands, and each outbound webhook POST (which carries `traceparent`).
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Share of new traces recorded when OTEL_TRACES_SAMPLER is unset: every
 * trace costs its request about a third more CPU (docs/operations.md).
 */
export const DEFAULT_TRACE_RATIO = 0.1;

/**
 * The share of new traces when OTEL_TRACES_SAMPLER is unset:
 * OTEL_TRACES_SAMPLER_ARG (0 to 1), else DEFAULT_TRACE_RATIO. Undefined when
 * OTEL_TRACES_SAMPLER is set: that sampler is the SDK's to read.
 */
export function traceRatioOf(env: NodeJS.ProcessEnv): number | undefined {
  if (env.OTEL_TRACES_SAMPLER) return undefined;
  const given = env.OTEL_TRACES_SAMPLER_ARG?.trim() ? Number(env.OTEL_TRACES_SAMPLER_ARG) : NaN;
  return given >= 0 && given <= 1 ? given : DEFAULT_TRACE_RATIO;
}

/**
 * With OTEL_TRACES_SAMPLER unset, a request that arrives with a `traceparent`
 * follows the caller's decision and one of every 1 / ratio others starts a
 * trace. Requests are chosen before the HTTP instrumentation sees them
 * (requestTraced, RequestDoor): one not chosen skips it, or is passed by as
 * a probe is, without the span attributes, context and listeners an
 * unrecorded span would still cost it. So the sampler records every HTTP
 * server span it is asked about (those were chosen) and applies the ratio to
 * the other new traces (webhook deliveries, the jobs' statements).
 */
export function samplerOf(env: NodeJS.ProcessEnv): Sampler | undefined {
  const ratio = traceRatioOf(env);
  if (ratio === undefined) return undefined;
  const { ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { SpanKind: Kind } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const others = new TraceIdRatioBasedSampler(ratio);
  const root: Sampler = {
    shouldSample: (
      context: Context,
      traceId: string,
      _name: string,
      kind: SpanKind,
    ): SamplingResult =>
      kind === Kind.SERVER
        ? { decision: SamplingDecision.RECORD_AND_SAMPLED }
        : others.shouldSample(context, traceId),
    toString: () => `RequestsChosenOrElse{${others.toString()}}`,
  };
  return new ParentBasedSampler({ root });
}

let traceContext: import('@opentelemetry/core').W3CTraceContextPropagator | undefined;

/**
 * Whether a request is traced, decided as it arrives (with the ratio of
 * traceRatioOf): a valid `traceparent` by its sampled flag, any other
 * request by chance.
 */
export function requestTraced(
  headers: IncomingMessage['headers'],
  ratio: number,
  random: () => number = Math.random,
): boolean {
  if (headers.traceparent !== undefined) {
    const { ROOT_CONTEXT, TraceFlags, defaultTextMapGetter, isSpanContextValid, trace } =
      require('@opentelemetry/api') as typeof import('@opentelemetry/api');
    const { W3CTraceContextPropagator } =
      require('@opentelemetry/core') as typeof import('@opentelemetry/core');
    traceContext ??= new W3CTraceContextPropagator();
    const parent = trace.getSpanContext(
      traceContext.extract(ROOT_CONTEXT, headers, defaultTextMapGetter),
    );
    if (parent && isSpanContextValid(parent)) return (parent.traceFlags & TraceFlags.SAMPLED) !== 0;
  }
  return random() < ratio;
}

/** Not traced: probes and scrapes, polled every few seconds. */
const UNTRACED = /^\/(metrics|health\/(live|ready))(\?|$)/;

/** Redis commands by name only: the rate-limit keys hold client IP addresses. */
const redisStatement = (command: string, args: unknown[]) =>
  `${command} [${args.length} arguments]`;

export interface Tracing {
  shutdown(): Promise<void>;
}

export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  if (!tracingEnabled(env)) return undefined;
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes, envDetector, detectResources } =
    require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis');

  const resource = resourceFromAttributes({
    'service.name': env.OTEL_SERVICE_NAME ?? 'calendar-events-service',
  }).merge(detectResources({ detectors: [envDetector] }));
  const sampler = samplerOf(env);
  const ratio = traceRatioOf(env);
  // With the default sampler each request is chosen once, at the door; else the sampler decides.
  const door =
    ratio === undefined
      ? undefined
      : new RequestDoor(
          (req) => !UNTRACED.test(req.url ?? '') && requestTraced(req.headers, ratio),
        );
  const provider = new NodeTracerProvider({
    resource,
    // Only when given: a `sampler: undefined` would hide the one the SDK builds from OTEL_TRACES_SAMPLER.
    ...(sampler && { sampler }),
    // Batch sizes, delay and the exporter's compression: OTEL_BSP_*, OTEL_EXPORTER_OTLP_COMPRESSION.
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The W3C trace-context propagator (and baggage) and the async-local context manager.
  provider.register();
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: door
          ? door.ignore
          : (req: IncomingMessage) => UNTRACED.test(req.url ?? ''),
        headersToSpanAttributes: { server: { responseHeaders: ['x-request-id'] } },
      }),
      routeInstrumentation(),
      statementInstrumentation(),
      new IORedisInstrumentation({ dbStatementSerializer: redisStatement }),
    ],
  });
  // Requiring http here has the instrumentation patch it, then the door goes in front.
  door?.install((require('node:http') as typeof import('node:http')).Server);
  return { shutdown: () => provider.shutdown() };
}

type Handle = (this: unknown, ...args: unknown[]) => unknown;
interface ExpressLayer {
  name?: string;
  handle: Handle;
}
interface LayerPatcher {
  _applyPatch(layer: ExpressLayer, layerPath?: string): void;
}

/**
 * The Express instrumentation with one span per request: the controller's
 * route handler. Middleware (`app.use`) is not instrumented at all: only
 * route handler layers are patched where each layer is patched (the pinned
 * version's `_applyPatch`; the tracing e2e test counts the Express spans of
 * a request). Module middleware Nest would mount with `forRoutes` (a
 * catch-all route whose layer is named like a handler) would get spans too;
 * the service mounts none. An unpatched layer costs a request that
 * is not sampled nothing, and so does a patched route handler: it runs the
 * instrumentation's wrapper (route bookkeeping, context binding) only while
 * a span is being recorded.
 */
function routeInstrumentation(): unknown {
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express');
  const { context, trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const recording = () => trace.getSpan(context.active())?.isRecording() === true;
  const express = new ExpressInstrumentation({ ignoreLayersType: ['middleware', 'router'] });
  const patcher = express as LayerPatcher;
  const patchLayer = patcher._applyPatch.bind(express);
  patcher._applyPatch = (layer, layerPath) => {
    // Routers stay patched (no span of their own): their routes need the mount path.
    const router = layer.name === 'router';
    const handler = layer.name === 'handle' || layer.name === 'bound dispatch';
    if (router) patchLayer(layer, layerPath);
    if (!handler) return;
    const plain = layer.handle;
    patchLayer(layer, layerPath);
    const patched = layer.handle;
    if (patched === plain) return; // patched before
    layer.handle = function (this: unknown, req: unknown, res: unknown, next: unknown) {
      return (recording() ? patched : plain).call(this, req, res, next);
    };
  };
  return express;
}

type Query = (this: unknown, ...args: unknown[]) => unknown;
interface QueryPatcher {
  _patchQuery(format: unknown, isPrepared: boolean): (original: Query) => Query;
}

/**
 * The mysql2 instrumentation, run for a statement only when its span could
 * be recorded: under a recording span, or as a new trace's root (the jobs'
 * statements, for the sampler to decide). The instrumentation itself builds
 * the span's attributes (connection, statement text, name) and wraps the
 * callback before the tracer says the span is not recorded; a request not
 * chosen (tracing suppressed) runs its several statements without it. The
 * pinned version patches `query` and `execute` through `_patchQuery` when
 * mysql2 is loaded (the tracing e2e test checks a request's SQL spans).
 */
function statementInstrumentation(): unknown {
  const { MySQL2Instrumentation } = require('@opentelemetry/instrumentation-mysql2');
  const { context, trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { isTracingSuppressed } =
    require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const traced = () => {
    const active = context.active();
    const span = trace.getSpan(active);
    return span ? span.isRecording() : !isTracingSuppressed(active);
  };
  const mysql = new MySQL2Instrumentation();
  const patcher = mysql as QueryPatcher;
  const patchQuery = patcher._patchQuery.bind(mysql);
  patcher._patchQuery = (format, isPrepared) => (original) => {
    const patched = patchQuery(format, isPrepared)(original);
    return function (this: unknown, ...args: unknown[]) {
      return (traced() ? patched : original).apply(this, args);
    };
  };
  return mysql;
}
