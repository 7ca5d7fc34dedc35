import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { ChangeKind } from '../writes/change-kinds';
import { ChangeListener, ChangeTracker, TrackedChange } from '../writes/change-tracker';
import type { WriteUnit } from '../writes/write-unit';
import type { RequestContext } from '../common/http/request-context';
import { RecordReaders, type RecordsById } from '../common/records/record-readers';
import { appConfig } from '../config/app.config';
import { WRITTEN_EVENT_ROWS } from '../events/event-records.service';
import { subscribes } from './message-types';
import { OutgoingMessage, WebhookOutbox } from './webhook-outbox';

/** Records read per query batch. */
const BATCH = 500;

/** The message type of a change: `<kind>.<action>`. */
export function messageType(change: TrackedChange): string {
  return `${change.kind}.${change.action}`;
}

/**
 * Change messages (docs/api.md §15): every write transaction's changes become
 * `<kind>.created|updated|deleted` messages in the outbox, in that
 * transaction, before it commits (their rows queued in the unit and written
 * by the commit pipeline: an atomic batch's in one go). The `record` is read through the
 * transaction (its uncommitted state) as an administrator's `context=edit`
 * read in DEFAULT_LANGUAGE shows it, from the rows the write itself read
 * last where it kept them in its unit (WRITTEN_EVENT_ROWS). Nothing is read when no
 * enabled endpoint subscribes to the write's types.
 *
 * Changes recorded only because an embedded record changed who may see it
 * (`via`) are not announced: the embedded record has its own message, and an
 * administrator's view of the event did not change (docs/decisions.md).
 */
@Injectable()
export class ChangeMessages implements ChangeListener, OnModuleInit, OnModuleDestroy {
  private readonly reader: RequestContext;
  private unsubscribe?: () => void;

  constructor(
    private readonly tracker: ChangeTracker,
    private readonly outbox: WebhookOutbox,
    private readonly readers: RecordReaders,
    @Inject(appConfig.KEY) config: ConfigType<typeof appConfig>,
  ) {
    this.reader = {
      language: config.defaultLanguage,
      user: { id: 0, role: 'administrator' },
      // No request: record links use the public address of {api} (docs/decisions.md).
      apiUrl: `${config.publicSiteUrl}${config.apiPath}`,
    };
  }

  onModuleInit(): void {
    this.unsubscribe = this.tracker.subscribe(this);
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The enabled endpoints, read (and share-locked) once per transaction: see WebhookOutbox.subscribers. */
  async readAhead(unit: WriteUnit): Promise<void> {
    await this.outbox.subscribers(unit, []);
  }

  async onChanges(unit: WriteUnit, changes: readonly TrackedChange[]): Promise<void> {
    const direct = changes.filter((change) => !change.via);
    if (direct.length === 0) return;
    const endpoints = await this.outbox.subscribers(unit, [...new Set(direct.map(messageType))]);
    if (endpoints.length === 0) return;
    const wanted = direct.filter((change) =>
      endpoints.some((endpoint) => subscribes(endpoint.events, messageType(change))),
    );
    const records = await this.records(
      unit,
      wanted.filter((change) => !(change.action === 'deleted' && change.permanent)),
    );
    const messages = wanted.map((change): OutgoingMessage => {
      const record = records.get(change.kind)?.get(change.id);
      return {
        type: messageType(change),
        data: {
          kind: change.kind,
          id: change.id,
          ...(change.action === 'deleted' ? { permanent: Boolean(change.permanent) } : {}),
          ...(record ? { record } : {}),
        },
      };
    });
    this.outbox.queue(unit, messages, endpoints);
  }

  /** The records of the changes, per kind (RecordReaders), a few queries per batch of BATCH. */
  private records(
    unit: WriteUnit,
    changes: TrackedChange[],
  ): Promise<Map<ChangeKind, RecordsById>> {
    const ids = RecordReaders.idsByKind(changes);
    // The rows the write read last for its answer (an event with what it links to), unless it
    // recorded a change since: its records are rendered from them, not read again. Valid
    // throughout, as this only reads (WriteUnit.keep).
    const kept = unit.keptRows(WRITTEN_EVENT_ROWS);
    return this.readers.readAll(
      ids,
      (reader, batch) => reader.edit(unit.manager, batch, this.reader, kept),
      // One after another: they share the transaction's connection.
      { sequential: true, batch: BATCH },
    );
  }
}
