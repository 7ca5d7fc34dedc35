import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { ChangeKind } from '../writes/change-kinds';
import { ChangeListener, ChangeTracker, TrackedChange } from '../writes/change-tracker';
import type { WriteUnit } from '../writes/write-unit';
import type { RequestContext } from '../common/http/request-context';
import { appConfig } from '../config/app.config';
import { WRITTEN_EVENT_ROWS } from '../events/event-records.service';
import { EventsService } from '../events/events.service';
import { OrganizersService } from '../organizers/organizers.service';
import { TermLinksService } from '../terms/term-links.service';
import { VenuesService } from '../venues/venues.service';
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
 * transaction, before it commits. The `record` is read through the
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
    private readonly events: EventsService,
    private readonly venues: VenuesService,
    private readonly organizers: OrganizersService,
    private readonly terms: TermLinksService,
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

  async onChanges(unit: WriteUnit, changes: readonly TrackedChange[]): Promise<void> {
    const { manager } = unit;
    const direct = changes.filter((change) => !change.via);
    if (direct.length === 0) return;
    const endpoints = await this.outbox.subscribers(manager, [...new Set(direct.map(messageType))]);
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
    await this.outbox.store(unit, messages, endpoints);
  }

  /** The records of the changes, per kind, a few queries per batch of BATCH. */
  private async records(
    unit: WriteUnit,
    changes: TrackedChange[],
  ): Promise<Map<ChangeKind, Map<number, unknown>>> {
    const { manager } = unit;
    const ids = (kinds: ChangeKind[]) =>
      changes.filter((change) => kinds.includes(change.kind)).map((change) => change.id);
    const read = async <R>(
      list: number[],
      load: (batch: number[]) => Promise<Map<number, R>>,
    ): Promise<Map<number, R>> => {
      const all = new Map<number, R>();
      for (let i = 0; i < list.length; i += BATCH) {
        for (const [id, record] of await load(list.slice(i, i + BATCH))) all.set(id, record);
      }
      return all;
    };
    const ctx = this.reader;
    // The rows the write read last for its answer (an event with what it links to), unless it
    // recorded a change since: its records are rendered from them, not read again. Valid
    // throughout, as this only reads (WriteUnit.keep).
    const kept = unit.keptRows(WRITTEN_EVENT_ROWS);
    // One after another: they share the transaction's connection.
    const events = await read(ids(['event']), (b) =>
      this.events.editRecords(manager, b, ctx, kept),
    );
    const venues = await read(ids(['venue']), (b) =>
      this.venues.editRecords(manager, b, ctx, kept?.venues),
    );
    const organizers = await read(ids(['organizer']), (b) =>
      this.organizers.editRecords(manager, b, ctx, kept?.organizers),
    );
    const terms = await read(ids(['category', 'tag']), (b) =>
      this.terms.recordsByIds(b, ctx, manager, true, kept?.terms),
    );
    return new Map<ChangeKind, Map<number, unknown>>([
      ['event', events],
      ['venue', venues],
      ['organizer', organizers],
      ['category', terms],
      ['tag', terms],
    ]);
  }
}
