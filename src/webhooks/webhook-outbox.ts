import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { insertedId } from '../database/entity-rows';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookMessage } from './entities/webhook-message.entity';
import { subscribes } from './message-types';
import { ClaimedRow, WebhookSender } from './webhook-sender.service';

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

/** Messages per INSERT, and the most body bytes one INSERT carries (MySQL's packet limit). */
const ROWS_PER_INSERT = 500;
const BYTES_PER_INSERT = 4 * 1024 * 1024;

/** A message as stored: its `webhook-id`, type and body. */
interface StoredMessage {
  messageId: string;
  type: string;
  body: string;
}

/** Deliveries of one write handed to this process's sender at commit; more are left to its claims. */
const HAND_OVER_MAX = 64;

/** A `webhook-id`: unique per message, the same on every attempt. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/**
 * The transactional outbox (docs/api.md §15): messages are stored in the
 * transaction of the change they announce, with one pending delivery per
 * endpoint that wants them, so a committed change is always announced (even if
 * the process dies right after the commit) and a rolled-back one never is.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly sender: WebhookSender) {}

  /**
   * The enabled endpoints that subscribe to any of `types`, read with a
   * shared lock on MySQL/MariaDB: the deliveries about to be written
   * reference them, and an endpoint deleted (or its secret rotated) meanwhile
   * would otherwise fail the write on its foreign key (or sign with the old
   * secret); a delete or rotation waits for this transaction instead. One
   * read, locking whether or not anyone subscribes: a plain read first would
   * cost every write with a subscriber a second statement, and the lock only
   * ever holds up an administrator's change to an endpoint for one write. On
   * SQLite the write transaction already excludes every other writer.
   */
  async subscribers(manager: EntityManager, types: string[]): Promise<Subscriber[]> {
    const lock = manager.connection.options.type === 'mysql';
    return (await readEndpoints(manager, lock)).filter((endpoint) =>
      types.some((type) => subscribes(endpoint.events, type)),
    );
  }

  /**
   * Stores the messages, each with a pending delivery for every endpoint of
   * `to` that subscribes to its type (all of them when `forced`: a ping).
   * A few multi-row statements whatever the number of messages. The sender is
   * woken when the transaction commits. Returns the messages' `webhook-id`s.
   */
  async store(
    manager: EntityManager,
    messages: OutgoingMessage[],
    to: Subscriber[],
    forced = false,
  ): Promise<string[]> {
    const now = Date.now();
    const timestamp = new Date(now).toISOString();
    const rows = messages.map(({ type, data }) => ({
      messageId: newMessageId(),
      type,
      body: JSON.stringify({ type, timestamp, data }),
    }));
    if (rows.length === 1) return [await this.storeOne(manager, rows[0], to, forced, now)];
    let deliveries = 0;
    for (const chunk of chunks(rows)) {
      await manager.query(
        `INSERT INTO webhook_messages (message_id, type, body, created_ms) VALUES ${chunk
          .map(() => '(?, ?, ?, ?)')
          .join(', ')}`,
        chunk.flatMap((row) => [row.messageId, row.type, row.body, now]),
      );
      // The deliveries take the new rows' IDs from the rows themselves: one statement per endpoint.
      for (const endpoint of to) {
        const mine = forced ? chunk : chunk.filter((row) => subscribes(endpoint.events, row.type));
        if (mine.length === 0) continue;
        await manager.query(
          'INSERT INTO webhook_deliveries ' +
            '(endpoint_id, message_id, status, attempts, forced, next_attempt_ms, created_ms) ' +
            `SELECT ?, id, 'pending', 0, ?, ?, ? FROM webhook_messages WHERE message_id IN (${mine
              .map(() => '?')
              .join(', ')})`,
          [endpoint.id, forced ? 1 : 0, now, now, ...mine.map((row) => row.messageId)],
        );
        deliveries += mine.length;
      }
    }
    if (deliveries > 0) await this.handOver(manager, rows, to, forced, deliveries);
    return rows.map((row) => row.messageId);
  }

  /**
   * The deliveries of a write with several messages (an event create also
   * moves its terms' counts): when this process sends and they are few, one
   * more read in the transaction finds their IDs (multi-row INSERTs do not
   * give them), so the sender takes them at commit with one UPDATE instead
   * of a claim transaction that finds and reads them again (five statements
   * or more). Otherwise the sender looks for them after COMMIT.
   */
  private async handOver(
    manager: EntityManager,
    rows: StoredMessage[],
    to: Subscriber[],
    forced: boolean,
    deliveries: number,
  ): Promise<void> {
    if (!this.sender.sends || deliveries > HAND_OVER_MAX)
      return this.sender.wakeAfterCommit(manager);
    const stored: Array<{ id: number | string; endpoint_id: number | string; message_id: string }> =
      await manager.query(
        'SELECT d.id, d.endpoint_id, m.message_id FROM webhook_deliveries d ' +
          'JOIN webhook_messages m ON m.id = d.message_id ' +
          `WHERE m.message_id IN (${rows.map(() => '?').join(', ')})`,
        rows.map((row) => row.messageId),
      );
    const messages = new Map(rows.map((row) => [row.messageId, row]));
    const endpoints = new Map(to.map((endpoint) => [endpoint.id, endpoint]));
    this.sender.takeAfterCommit(
      manager,
      stored.map((delivery) =>
        handed(
          Number(delivery.id),
          endpoints.get(Number(delivery.endpoint_id)) as Subscriber,
          messages.get(delivery.message_id) as StoredMessage,
          forced,
        ),
      ),
    );
  }

  /**
   * One message, the common case (a single write, a ping): single-row INSERTs
   * hand back the new rows' IDs, so this process's sender takes the
   * deliveries at commit as they are, with one UPDATE instead of a claim
   * transaction that looks them up again (WebhookSender.takeAfterCommit).
   */
  private async storeOne(
    manager: EntityManager,
    row: StoredMessage,
    to: Subscriber[],
    forced: boolean,
    now: number,
  ): Promise<string> {
    const messageRowId = insertedId(
      await manager.query(
        'INSERT INTO webhook_messages (message_id, type, body, created_ms) VALUES (?, ?, ?, ?)',
        [row.messageId, row.type, row.body, now],
      ),
    );
    const deliveries: ClaimedRow[] = [];
    for (const endpoint of to) {
      if (!forced && !subscribes(endpoint.events, row.type)) continue;
      const id = insertedId(
        await manager.query(
          'INSERT INTO webhook_deliveries ' +
            '(endpoint_id, message_id, status, attempts, forced, next_attempt_ms, created_ms) ' +
            "VALUES (?, ?, 'pending', 0, ?, ?, ?)",
          [endpoint.id, messageRowId, forced ? 1 : 0, now, now],
        ),
      );
      deliveries.push(handed(id, endpoint, row, forced));
    }
    if (deliveries.length > 0) this.sender.takeAfterCommit(manager, deliveries);
    return row.messageId;
  }

  /** Queues one message to one endpoint, whatever it subscribes to and even if disabled. */
  async storeForced(
    manager: EntityManager,
    message: OutgoingMessage,
    to: Subscriber,
  ): Promise<{ delivery: WebhookDelivery; message: WebhookMessage }> {
    const [messageId] = await this.store(manager, [message], [to], true);
    const stored = await manager.findOneByOrFail(WebhookMessage, { messageId });
    const delivery = await manager.findOneByOrFail(WebhookDelivery, { messageId: stored.id });
    return { delivery, message: stored };
  }
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
function handed(
  id: number,
  endpoint: Subscriber,
  message: StoredMessage,
  forced: boolean,
): ClaimedRow {
  return {
    id,
    attempts: 0,
    forced,
    endpoint_id: endpoint.id,
    message_id: message.messageId,
    body: message.body,
    url: endpoint.url,
    secret: endpoint.secret,
    consecutive_failures: endpoint.consecutiveFailures,
  };
}

/** Rows in groups small enough for one statement. */
function* chunks<T extends { body: string }>(rows: T[]): Generator<T[]> {
  let chunk: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (
      chunk.length > 0 &&
      (chunk.length >= ROWS_PER_INSERT || bytes + Buffer.byteLength(row.body) > BYTES_PER_INSERT)
    ) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += Buffer.byteLength(row.body);
  }
  if (chunk.length > 0) yield chunk;
}
