import { SpanKind, trace } from '@opentelemetry/api';
import { type AfterQueryEvent, type EntitySubscriberInterface, EventSubscriber } from 'typeorm';
import { signals } from '../metrics/signals';

const tracer = trace.getTracer('calendar-events-service/sqlite');

/** The statement's first keyword, as a low-cardinality label. */
const KEYWORD = /^\s*([A-Za-z]+)/;
const OPERATIONS = new Set(['select', 'insert', 'update', 'delete']);
const TRANSACTION = new Set(['start', 'begin', 'commit', 'rollback', 'savepoint', 'release']);

export function operationOf(query: string): string {
  const keyword = KEYWORD.exec(query)?.[1].toLowerCase() ?? '';
  if (OPERATIONS.has(keyword)) return keyword;
  // Reads in the feed and counts begin with a parenthesised SELECT or WITH.
  if (keyword === 'with') return 'select';
  return TRANSACTION.has(keyword) ? 'transaction' : 'other';
}

/**
 * Every statement's duration and failure (TypeORM measures the duration),
 * for the metrics; and, on SQLite, a span per statement while a trace is
 * being recorded: better-sqlite3 has no OpenTelemetry instrumentation
 * (mysql2's makes the spans on MySQL). With neither, it returns at once:
 * naming the statement costs more than the rest of its bookkeeping.
 */
@EventSubscriber()
export class QueryObserver implements EntitySubscriberInterface {
  afterQuery(event: AfterQueryEvent): void {
    const metered = signals.enabled;
    const traced =
      event.connection.options.type === 'better-sqlite3' &&
      trace.getActiveSpan()?.isRecording() === true;
    if (!metered && !traced) return;
    const operation = operationOf(event.query);
    if (metered) {
      const seconds = event.executionTime === undefined ? undefined : event.executionTime / 1000;
      signals.query(operation, seconds, !event.success);
    }
    if (traced) traceSqlite(event, operation);
  }
}

function traceSqlite(event: AfterQueryEvent, operation: string): void {
  const end = Date.now();
  const span = tracer.startSpan(operation.toUpperCase(), {
    kind: SpanKind.CLIENT,
    startTime: end - (event.executionTime ?? 0),
    attributes: {
      'db.system.name': 'sqlite',
      // Placeholders only: parameter values never leave the process.
      'db.query.text': event.query.slice(0, 2000),
      'db.operation.name': operation.toUpperCase(),
    },
  });
  if (!event.success) span.setStatus({ code: 2, message: 'query failed' });
  span.end(end);
}
