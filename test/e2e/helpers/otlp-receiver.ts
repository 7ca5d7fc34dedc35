import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/HTTP JSON carries it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}

function valueOf(value: OtlpValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
}

/** A stand-in for an OpenTelemetry collector: accepts OTLP/HTTP JSON traces on /v1/traces. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/v1/traces') this.take(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private take(text: string): void {
    const body = JSON.parse(text) as {
      resourceSpans?: Array<{
        scopeSpans?: Array<{
          spans?: Array<
            Omit<ReceivedSpan, 'attributes'> & {
              attributes?: Array<{ key: string; value: OtlpValue }>;
            }
          >;
        }>;
      }>;
    };
    for (const resource of body.resourceSpans ?? [])
      for (const scope of resource.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            ...span,
            attributes: Object.fromEntries(
              (span.attributes ?? []).map((a) => [a.key, valueOf(a.value)]),
            ),
          });
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
