import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccessPolicy } from '../auth/policy';
import type { RequestContext } from '../common/http/request-context';
import {
  ByteBudget,
  cachedRecords,
  LinkedRecordStore,
} from '../common/records/linked-record-cache';
import { VersionedCacheService } from '../common/cache/versioned-cache.service';
import { SharedRecordBytes } from '../common/records/shared-record-bytes';
import { CacheStats } from '../metrics/signals';
import { appConfig } from '../config/app.config';
import { plainRowsWhereIn } from '../database/entity-rows';
import { KeptRows } from '../writes/write-unit';
import type { Organizer } from '../organizers/entities/organizer.entity';
import type { OrganizerRecord } from '../organizers/organizer.mapper';
import { OrganizersService } from '../organizers/organizers.service';
import type { Term } from '../terms/entities/term.entity';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import { loadTerms } from '../terms/term-store';
import { compareTermNames, type TermRecord } from '../terms/term.mapper';
import { TermLinksService } from '../terms/term-links.service';
import type { Venue } from '../venues/entities/venue.entity';
import type { VenueRecord } from '../venues/venue.mapper';
import { VenuesService } from '../venues/venues.service';
import { EventOrganizer } from './entities/event-organizer.entity';
import { EventTerm } from './entities/event-term.entity';
import { Event } from './entities/event.entity';
import { loadEvents } from './event-store';
import { EventLinks, EventMapOptions, EventRecord, EventRecordRow, mapEvent } from './event.mapper';

/** The term and organizer link rows of a set of events (plain rows: records only read them). */
export interface EventLinkRows {
  termLinks: Array<Pick<EventTerm, 'eventId' | 'termId'>>;
  organizerLinks: Array<Pick<EventOrganizer, 'eventId' | 'organizerId'>>;
}

/**
 * Everything the records of some events are made of (EventRecordsService.loadRows):
 * the events with their translations, their link rows, and the rows of the
 * terms, organizers and venues they link to, each with its translations.
 */
export interface EventRows {
  events: Map<number, Event>;
  links: EventLinkRows;
  terms: Map<number, Term>;
  organizers: Map<number, Organizer>;
  venues: Map<number, Venue>;
}

/**
 * The rows of the event a write read last for its answer's ETag
 * (EventWrites.readRecord), kept in its WriteUnit as its last read: its
 * change messages render the webhook record from them.
 */
export const WRITTEN_EVENT_ROWS = new KeptRows<EventRows>('written event rows');

/** The linked records events embed, and the test of whether the caller may see one. */
export interface LinkedRecords {
  terms: Map<number, TermRecord>;
  organizers: Map<number, OrganizerRecord>;
  venues: Map<number, VenueRecord>;
  visible: <R extends { author: string; status: Event['status'] }>(record?: R) => R | undefined;
}

/**
 * Event records as reads and writes answer them: the events with the
 * categories, tags, venue and organizers they embed, loaded for a whole page
 * in a fixed number of queries (no N+1).
 */
@Injectable()
export class EventRecordsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly terms: TermLinksService,
    private readonly venues: VenuesService,
    private readonly organizers: OrganizersService,
    private readonly versioned: VersionedCacheService,
  ) {}

  /**
   * The linked records of this instance for reads in the caller's language and
   * host, while the data version holds: lists and single reads re-use them
   * instead of reading and mapping the same venues, organizers and terms on
   * every request. Writes do not use it (their answer must show what they changed).
   */
  sharedLinks(ctx: RequestContext): Promise<LinkedRecordCache> {
    return this.versioned.get(
      `linked-records:${ctx.language}:${ctx.apiUrl}`,
      () => new LinkedRecordCache(SHARED_MAX_PER_KIND, true, new ByteBudget(SHARED_MAX_BYTES)),
      ctx,
    );
  }

  /**
   * The list records of events as anonymous readers see them, kept per
   * language and host while the data version holds (as sharedLinks): a page
   * shown again is written from their encoded JSON instead of being mapped
   * and stringified again. A signed-in caller's records depend on who it is
   * (the drafts it may see embedded, its edit texts): none are kept for it.
   */
  async sharedListRecords(ctx: RequestContext): Promise<ListRecords | undefined> {
    if (ctx.user) return undefined;
    return this.versioned.get(
      `list-events:${ctx.language}:${ctx.apiUrl}`,
      () => new ListRecords(SHARED_LIST_RECORD_BYTES, listRecordStats),
      ctx,
    );
  }

  /**
   * Maps events with what they embed, loaded for all of them at once (no
   * N+1). `kept`: list records kept for anonymous readers (sharedListRecords):
   * those found there are answered as kept, the others mapped and kept, as
   * long as the caller's options are a list's own (no edit texts, not blanked).
   */
  async map(
    events: EventRecordRow[],
    ctx: RequestContext,
    options: (event: EventRecordRow) => Partial<EventMapOptions>,
    linkRows?: EventLinkRows,
    linked?: LinkedRecordCache,
    kept?: ListRecords,
  ): Promise<EventRecord[]> {
    if (!kept) return this.mapAll(events, ctx, options, linkRows, linked);
    const keeps = (event: EventRecordRow) => {
      const { withTranslations, blanked, withJsonLd } = options(event);
      return !withTranslations && !blanked && !withJsonLd;
    };
    const found = kept.found(events.filter(keeps).map((event) => event.id));
    const missing = events.filter((event) => !found.has(event.id));
    const ofMissing = found.size > 0 && linkRows ? linksOf(linkRows, missing) : linkRows;
    const mapped =
      missing.length > 0 ? await this.mapAll(missing, ctx, options, ofMissing, linked) : [];
    missing.forEach((event, i) => {
      found.set(event.id, keeps(event) ? kept.keep(event.id, mapped[i]) : mapped[i]);
    });
    return events.map((event) => found.get(event.id) as EventRecord);
  }

  private async mapAll(
    events: EventRecordRow[],
    ctx: RequestContext,
    options: (event: EventRecordRow) => Partial<EventMapOptions>,
    linkRows?: EventLinkRows,
    linked?: LinkedRecordCache,
  ): Promise<EventRecord[]> {
    const links = linkRows ?? (await this.linkRows(events.map((event) => event.id)));
    const records = await this.linkedRecords(
      links.termLinks.map((link) => link.termId),
      links.organizerLinks.map((link) => link.organizerId),
      events.flatMap((event) => (event.venueId ? [event.venueId] : [])),
      ctx,
      linked,
    );
    return this.mapWith(events, links, records, ctx, options);
  }

  /**
   * Everything the records of these events are made of, read through
   * `manager` (a write's transaction: its uncommitted state): the events with
   * their translations, their link rows, and the rows of the terms, venues
   * and organizers they link to, in the same few queries whatever their number.
   */
  async loadRows(
    manager: EntityManager,
    ids: number[],
    knownLinks?: EventLinkRows,
  ): Promise<EventRows> {
    const [events, links] = await Promise.all([
      loadEvents(manager, ids),
      knownLinks ?? this.linkRows(ids, manager),
    ]);
    const [terms, organizers, venues] = await Promise.all([
      loadTerms(manager, [...new Set(links.termLinks.map((link) => link.termId))]),
      this.organizers.rowsByIds(
        manager,
        links.organizerLinks.map((link) => link.organizerId),
      ),
      this.venues.rowsByIds(
        manager,
        [...events.values()].flatMap((event) => (event.venueId ? [event.venueId] : [])),
      ),
    ]);
    return { events, links, terms, organizers, venues };
  }

  /** The records of loaded rows (see loadRows), in the caller's language and host. */
  mapRows(
    rows: EventRows,
    ctx: RequestContext,
    options: (event: EventRecordRow) => Partial<EventMapOptions>,
  ): EventRecord[] {
    const linked = {
      terms: this.terms.mapRecords(rows.terms, ctx),
      organizers: this.organizers.embeddedRecords(rows.organizers, ctx),
      venues: this.venues.embeddedRecords(rows.venues, ctx),
      visible: visibleTo(ctx),
    };
    return this.mapWith([...rows.events.values()], rows.links, linked, ctx, options);
  }

  /** The term and organizer link rows of events: they need only the IDs, so a list reads them beside the events. */
  async linkRows(
    ids: number[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<EventLinkRows> {
    if (ids.length === 0) return { termLinks: [], organizerLinks: [] };
    const [termLinks, organizerLinks] = await Promise.all([
      plainRowsWhereIn(manager, EventTerm, ['eventId', 'termId'], 'eventId', ids),
      plainRowsWhereIn(
        manager,
        EventOrganizer,
        ['eventId', 'organizerId'],
        'eventId',
        ids,
        'position',
      ),
    ]);
    return { termLinks, organizerLinks };
  }

  /**
   * The term, organizer and venue records of these IDs as shown to the
   * caller (those in `linked` from there), and the test of whether the caller
   * may see an embedded venue or organizer.
   */
  async linkedRecords(
    termIds: number[],
    organizerIds: number[],
    venueIds: number[],
    ctx: RequestContext,
    linked?: LinkedRecordCache,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<LinkedRecords> {
    const [terms, organizers, venues] = await Promise.all([
      cachedRecords(linked, linked?.terms, termIds, (ids) =>
        this.terms.recordsByIds(ids, ctx, manager),
      ),
      cachedRecords(linked, linked?.organizers, organizerIds, (ids) =>
        this.organizers.recordsByIds(ids, ctx, manager),
      ),
      cachedRecords(linked, linked?.venues, venueIds, (ids) =>
        this.venues.recordsByIds(ids, ctx, manager),
      ),
    ]);
    return { terms, organizers, venues, visible: visibleTo(ctx) };
  }

  /**
   * The records of the events with the linked records they embed. Venues and
   * organizers the caller may not see are left out.
   */
  private mapWith(
    events: EventRecordRow[],
    { termLinks, organizerLinks }: EventLinkRows,
    { terms, organizers, venues, visible }: LinkedRecords,
    ctx: RequestContext,
    options: (event: EventRecordRow) => Partial<EventMapOptions>,
  ): EventRecord[] {
    // Grouped once: filtering every link per event is quadratic in the batch size.
    const termLinksOf = groupBy(termLinks, (link) => link.eventId);
    const organizerLinksOf = groupBy(organizerLinks, (link) => link.eventId);
    return events.map((event) => {
      const eventTerms = (termLinksOf.get(event.id) ?? [])
        .flatMap((link) => terms.get(link.termId) ?? [])
        .sort(compareTermNames);
      const links: EventLinks = {
        categories: eventTerms.filter((term) => term.taxonomy === CATEGORIES.taxonomy),
        tags: eventTerms.filter((term) => term.taxonomy === TAGS.taxonomy),
        venue: event.venueId ? visible(venues.get(event.venueId)) : undefined,
        organizers: (organizerLinksOf.get(event.id) ?? []).flatMap(
          (link) => visible(organizers.get(link.organizerId)) ?? [],
        ),
      };
      return mapEvent(event, links, {
        language: ctx.language,
        apiUrl: ctx.apiUrl,
        siteUrl: this.config.publicSiteUrl,
        siteZone: this.config.siteTimezone,
        withJsonLd: false,
        withTranslations: false,
        blanked: false,
        ...options(event),
      });
    });
  }
}

/** Whether the caller may see an embedded venue or organizer (else it is left out). */
function visibleTo(ctx: RequestContext): LinkedRecords['visible'] {
  return (record) =>
    record &&
    AccessPolicy.canSeeItem(ctx.user, { authorId: Number(record.author), status: record.status })
      ? record
      : undefined;
}

/** Per kind, for the cache that requests share: memory stays small whatever the data. */
const SHARED_MAX_PER_KIND = 5_000;
/** And their encoded JSON per language and host (a few hundred bytes a record). */
const SHARED_MAX_BYTES = 8 * 1024 * 1024;

/** Anonymous list records kept per language and host: about 1,500 records of 3 kB. */
const SHARED_LIST_RECORD_BYTES = 4 * 1024 * 1024;

const listRecordStats = new CacheStats('list_event_records');

/** Event list records kept for anonymous readers (sharedListRecords). */
export class ListRecords extends SharedRecordBytes<EventRecord> {}

/** The records events embed, kept by the reads that share them (LinkedRecordStore), typed by kind. */
export class LinkedRecordCache extends LinkedRecordStore<
  TermRecord,
  OrganizerRecord,
  VenueRecord
> {}

/** The link rows of these events only. */
function linksOf(rows: EventLinkRows, events: EventRecordRow[]): EventLinkRows {
  const ids = new Set(events.map((event) => event.id));
  return {
    termLinks: rows.termLinks.filter((link) => ids.has(link.eventId)),
    organizerLinks: rows.organizerLinks.filter((link) => ids.has(link.eventId)),
  };
}

function groupBy<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
