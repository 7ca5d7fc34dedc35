/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
import type { IncomingMessage } from 'node:http';

/**
 * OpenTelemetry traces, off unless an OTLP endpoint is configured
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; the
 * other standard OTEL_* variables apply: service name, headers, sampler).
 * main.ts imports this first: the instrumentations patch http, express,
 * mysql2 and ioredis as they are required, so nothing of those may be
 * loaded before. Off, nothing of the SDK is loaded.
 *
 * Spans: each HTTP request (its X-Request-Id as
 * `http.response.header.x-request-id`, a W3C `traceparent` continued),
 * its Express route, mysql2 statements (SQLite: QueryObserver), Redis
 * commands, and each outbound webhook POST (which carries `traceparent`).
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Not traced: probes and scrapes, polled every few seconds. */
const UNTRACED = /^\/(metrics|health\/(live|ready))(\?|$)/;

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
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express');
  const { MySQL2Instrumentation } = require('@opentelemetry/instrumentation-mysql2');
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis');

  const resource = resourceFromAttributes({
    'service.name': env.OTEL_SERVICE_NAME ?? 'calendar-events-service',
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The W3C trace-context propagator (and baggage) and the async-local context manager.
  provider.register();
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req: IncomingMessage) => UNTRACED.test(req.url ?? ''),
        headersToSpanAttributes: { server: { responseHeaders: ['x-request-id'] } },
      }),
      // Route handlers only: a span per middleware would cost more than it tells.
      new ExpressInstrumentation({ ignoreLayersType: ['middleware'] }),
      new MySQL2Instrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  return { shutdown: () => provider.shutdown() };
}
