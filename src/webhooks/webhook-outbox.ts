import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { insertedId } from '../database/entity-inserts';
import { InsertReturning } from '../writes/insert-returning';
import { DeferredRows, TransactionRead, type WriteUnit } from '../writes/write-unit';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { subscribes } from './message-types';
import type { ClaimedRow, DeliveryLease } from './webhook-claims';
import { WebhookSender } from './webhook-sender.service';

/** One message to announce: its type and the `data` member of its body. */
export interface OutgoingMessage {
  type: string;
  data: Record<string, unknown>;
}

/** An endpoint as the outbox needs it: what it wants, and what its sender needs to post to it. */
export interface Subscriber {
  id: number;
  events: string[];
  url: string;
  secret: string;
  consecutiveFailures: number;
}

/** Deliveries per INSERT, and the most body bytes one INSERT carries (MySQL's packet limit). */
const ROWS_PER_INSERT = 500;
const BYTES_PER_INSERT = 4 * 1024 * 1024;

/** The enabled endpoints, read once per write transaction (WebhookOutbox.subscribers). */
const ENABLED_ENDPOINTS = new TransactionRead<Subscriber[]>('enabled webhook endpoints');

/** A message as stored: its `webhook-id`, type and body. */
interface StoredMessage {
  webhookId: string;
  type: string;
  body: string;
}

/** One delivery row: a message to an endpoint. */
interface DeliveryRow {
  endpoint: Subscriber;
  message: StoredMessage;
}

/** Deliveries of one write handed to this process's sender at commit; more are left to its claims. */
const HAND_OVER_MAX = 64;

/** A `webhook-id`: unique per message, the same on every attempt. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/**
 * The transactional outbox (docs/api.md §15): messages are stored in the
 * transaction of the change they announce, as one pending delivery row per
 * endpoint that wants them (the row carries the message), so a committed
 * change is always announced (even if the process dies right after the
 * commit) and a rolled-back one never is.
 */
@Injectable()
export class WebhookOutbox {
  constructor(
    private readonly sender: WebhookSender,
    private readonly insertReturning: InsertReturning,
  ) {}

  /**
   * The delivery rows of change messages, written just before COMMIT by
   * the commit pipeline (WriteUnit.defer): those of all the operations of an
   * atomic batch in one go, as the rows of one write.
   */
  private readonly deliveries = new DeferredRows<DeliveryRow>('webhook deliveries', (unit, rows) =>
    this.insert(unit, rows, false),
  );

  /**
   * The enabled endpoints that subscribe to any of `types`, read with a
   * shared lock on MySQL/MariaDB: the deliveries about to be written
   * reference them, and an endpoint deleted (or its secret rotated) meanwhile
   * would otherwise fail the write on its foreign key (or sign with the old
   * secret); a delete or rotation waits for this transaction instead. One
   * read, locking whether or not anyone subscribes: a plain read first would
   * cost every write with a subscriber a second statement, and the lock only
   * ever holds up an administrator's change to an endpoint for one write. On
   * SQLite the write transaction already excludes every other writer. Read
   * once per transaction (the lock holds until COMMIT): the operations of an
   * atomic batch share it.
   */
  async subscribers(unit: WriteUnit, types: string[]): Promise<Subscriber[]> {
    const { manager } = unit;
    const lock = manager.connection.options.type === 'mysql';
    const endpoints = await unit.transactionRead(ENABLED_ENDPOINTS, () =>
      readEndpoints(manager, lock),
    );
    return endpoints.filter((endpoint) => types.some((type) => subscribes(endpoint.events, type)));
  }

  /**
   * Queues the messages as a pending delivery for every endpoint of `to`
   * that subscribes to its type: the rows are written with the unit's other
   * deliveries just before COMMIT (see `deliveries`), and the sender is woken
   * when the transaction commits.
   */
  queue(unit: WriteUnit, messages: OutgoingMessage[], to: Subscriber[]): void {
    unit.defer(this.deliveries, deliveryRows(messages, to, false));
  }

  /**
   * One INSERT per ROWS_PER_INSERT deliveries, whatever the number of
   * messages and endpoints. When this process sends and they are few
   * (HAND_OVER_MAX), they are written leased to its sender, which takes them
   * at commit as they are (a claim would find and read them again, and a
   * lease written after the commit costs a statement more); otherwise the
   * sender is woken at commit and its poll claims them.
   */
  private async insert(unit: WriteUnit, rows: DeliveryRow[], forced: boolean): Promise<void> {
    if (rows.length === 0) return;
    const { manager } = unit;
    const lease =
      rows.length <= HAND_OVER_MAX
        ? this.sender.leaseForNew(rows.map((row) => row.endpoint.id))
        : undefined;
    if (!lease) {
      for (const chunk of chunks(rows)) await insertDeliveries(manager, chunk, forced, undefined);
      return this.sender.wakeAfterCommit(unit);
    }
    const returning = await this.insertReturning.available(manager);
    const written: WrittenDelivery[] = [];
    for (const chunk of chunks(rows)) {
      const result = await insertDeliveries(manager, chunk, forced, lease, returning);
      if (returning) written.push(...(result as WrittenDelivery[]));
      else if (rows.length === 1) written.push(writtenOne(result, chunk[0]));
    }
    // A multi-row INSERT without RETURNING (MySQL) tells no IDs: they are read back.
    const found = written.length === rows.length ? written : await readBack(unit, rows);
    const rowOf = new Map(rows.map((row) => [`${row.endpoint.id} ${row.message.webhookId}`, row]));
    const taken = found.map((delivery) => {
      const row = rowOf.get(`${Number(delivery.endpoint_id)} ${delivery.webhook_id}`);
      if (!row) throw new Error(`delivery ${delivery.id} was not written by this transaction`);
      return handed(Number(delivery.id), row, forced);
    });
    this.sender.takeAfterCommit(unit, taken);
  }

  /** Queues one message to one endpoint, whatever it subscribes to and even if disabled. */
  async storeForced(
    unit: WriteUnit,
    message: OutgoingMessage,
    to: Subscriber,
  ): Promise<WebhookDelivery> {
    const rows = deliveryRows([message], [to], true);
    await this.insert(unit, rows, true);
    return unit.manager.findOneByOrFail(WebhookDelivery, { webhookId: rows[0].message.webhookId });
  }
}

/**
 * The messages as stored (a `webhook-id` each; the body's timestamp is when
 * the message was made), one row per endpoint of `to` that wants it (every
 * one when `forced`).
 */
function deliveryRows(
  messages: OutgoingMessage[],
  to: Subscriber[],
  forced: boolean,
): DeliveryRow[] {
  const timestamp = new Date().toISOString();
  return messages.flatMap(({ type, data }) => {
    const message = {
      webhookId: newMessageId(),
      type,
      body: JSON.stringify({ type, timestamp, data }),
    };
    return to
      .filter((endpoint) => forced || subscribes(endpoint.events, type))
      .map((endpoint): DeliveryRow => ({ endpoint, message }));
  });
}

/**
 * One multi-row INSERT of deliveries with their messages, leased to this
 * process's sender when `lease` is given; `returning`: its rows come back
 * with their IDs (`INSERT … RETURNING`, see InsertReturning).
 */
function insertDeliveries(
  manager: EntityManager,
  rows: DeliveryRow[],
  forced: boolean,
  lease: DeliveryLease | undefined,
  returning = false,
): Promise<unknown> {
  const now = Date.now();
  return manager.query(
    'INSERT INTO webhook_deliveries (endpoint_id, webhook_id, type, body, status, attempts, ' +
      `forced, next_attempt_ms, created_ms, lease_until_ms, lease_owner) VALUES ${rows
        .map(() => "(?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?)")
        .join(', ')}${returning ? ' RETURNING id, endpoint_id, webhook_id' : ''}`,
    rows.flatMap(({ endpoint, message }) => [
      endpoint.id,
      message.webhookId,
      message.type,
      message.body,
      forced ? 1 : 0,
      now,
      now,
      lease?.untilMs ?? null,
      lease?.owner ?? null,
    ]),
  );
}

/** A delivery row as written: its ID, and what tells it from the others of its write. */
interface WrittenDelivery {
  id: number | string;
  endpoint_id: number | string;
  webhook_id: string;
}

/** The delivery a single-row INSERT wrote (mysql2's OK packet, or better-sqlite3's rowid). */
function writtenOne(result: unknown, { endpoint, message }: DeliveryRow): WrittenDelivery {
  return { id: insertedId(result), endpoint_id: endpoint.id, webhook_id: message.webhookId };
}

/** The deliveries of these messages, read back by their `webhook-id`s. */
function readBack(unit: WriteUnit, rows: DeliveryRow[]): Promise<WrittenDelivery[]> {
  const webhookIds = [...new Set(rows.map((row) => row.message.webhookId))];
  return unit.manager.query(
    'SELECT id, endpoint_id, webhook_id FROM webhook_deliveries ' +
      `WHERE webhook_id IN (${webhookIds.map(() => '?').join(', ')})`,
    webhookIds,
  );
}

async function readEndpoints(manager: EntityManager, lock: boolean): Promise<Subscriber[]> {
  const rows: Array<{
    id: number | string;
    events: string;
    url: string;
    secret: string;
    consecutive_failures: number | string;
  }> = await manager.query(
    'SELECT id, events, url, secret, consecutive_failures FROM webhook_endpoints ' +
      `WHERE enabled = 1${lock ? ' LOCK IN SHARE MODE' : ''}`,
  );
  return rows.map((row) => ({
    id: Number(row.id),
    events: JSON.parse(row.events) as string[],
    url: row.url,
    secret: row.secret,
    consecutiveFailures: Number(row.consecutive_failures),
  }));
}

/** A delivery this transaction wrote, as the sender takes it after COMMIT. */
function handed(id: number, { endpoint, message }: DeliveryRow, forced: boolean): ClaimedRow {
  return {
    id,
    attempts: 0,
    forced,
    endpoint_id: endpoint.id,
    webhook_id: message.webhookId,
    body: message.body,
    url: endpoint.url,
    secret: endpoint.secret,
    consecutive_failures: endpoint.consecutiveFailures,
  };
}

/** Deliveries in groups small enough for one statement. */
function* chunks(rows: DeliveryRow[]): Generator<DeliveryRow[]> {
  let chunk: DeliveryRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = Buffer.byteLength(row.message.body);
    if (chunk.length > 0 && (chunk.length >= ROWS_PER_INSERT || bytes + size > BYTES_PER_INSERT)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}
