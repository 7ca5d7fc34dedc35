import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccessPolicy } from '../auth/policy';
import type { RequestContext } from '../common/http/request-context';
import { VersionedCacheService } from '../common/cache/versioned-cache.service';
import { appConfig } from '../config/app.config';
import { rowsWhereIn } from '../database/entity-rows';
import type { OrganizerRecord } from '../organizers/organizer.mapper';
import { OrganizersService } from '../organizers/organizers.service';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import type { TermRecord } from '../terms/term.mapper';
import { TermLinksService } from '../terms/term-links.service';
import type { VenueRecord } from '../venues/venue.mapper';
import { VenuesService } from '../venues/venues.service';
import { EventOrganizer } from './entities/event-organizer.entity';
import { EventTerm } from './entities/event-term.entity';
import { Event } from './entities/event.entity';
import { EventLinks, EventMapOptions, EventRecord, mapEvent } from './event.mapper';

/** The term and organizer link rows of a set of events. */
export interface EventLinkRows {
  termLinks: EventTerm[];
  organizerLinks: EventOrganizer[];
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
      () => new LinkedRecordCache(SHARED_MAX_PER_KIND, true),
      ctx,
    );
  }

  /** Maps events with what they embed, loaded for all of them at once (no N+1). */
  async map(
    events: Event[],
    ctx: RequestContext,
    options: (event: Event) => Partial<EventMapOptions>,
    linkRows?: EventLinkRows,
    linked?: LinkedRecordCache,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<EventRecord[]> {
    const links = await this.loadLinks(
      events,
      linkRows ??
        (await this.linkRows(
          events.map((event) => event.id),
          manager,
        )),
      ctx,
      linked,
      manager,
    );
    return events.map((event) =>
      mapEvent(event, links.get(event.id) as EventLinks, {
        language: ctx.language,
        apiUrl: ctx.apiUrl,
        siteUrl: this.config.publicSiteUrl,
        siteZone: this.config.siteTimezone,
        withJsonLd: false,
        withTranslations: false,
        blanked: false,
        ...options(event),
      }),
    );
  }

  /** The term and organizer link rows of events: they need only the IDs, so a list reads them beside the events. */
  async linkRows(
    ids: number[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<EventLinkRows> {
    if (ids.length === 0) return { termLinks: [], organizerLinks: [] };
    const [termLinks, organizerLinks] = await Promise.all([
      rowsWhereIn(manager, EventTerm, 'eventId', ids),
      rowsWhereIn(manager, EventOrganizer, 'eventId', ids, 'position'),
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
  ): Promise<{
    terms: Map<number, TermRecord>;
    organizers: Map<number, OrganizerRecord>;
    venues: Map<number, VenueRecord>;
    visible: <R extends { author: string; status: Event['status'] }>(record?: R) => R | undefined;
  }> {
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
    const visible = <R extends { author: string; status: Event['status'] }>(record?: R) =>
      record &&
      AccessPolicy.canSeeItem(ctx.user, { authorId: Number(record.author), status: record.status })
        ? record
        : undefined;
    return { terms, organizers, venues, visible };
  }

  /**
   * The terms, venue and organizers of the events, in the same few queries
   * whatever their number. Venues and organizers the caller may not see are left out.
   */
  private async loadLinks(
    events: Event[],
    { termLinks, organizerLinks }: EventLinkRows,
    ctx: RequestContext,
    linked: LinkedRecordCache | undefined,
    manager: EntityManager,
  ): Promise<Map<number, EventLinks>> {
    if (events.length === 0) return new Map();
    const { terms, organizers, venues, visible } = await this.linkedRecords(
      termLinks.map((link) => link.termId),
      organizerLinks.map((link) => link.organizerId),
      events.flatMap((event) => (event.venueId ? [event.venueId] : [])),
      ctx,
      linked,
      manager,
    );
    // Grouped once: filtering every link per event is quadratic in the batch size.
    const termLinksOf = groupBy(termLinks, (link) => link.eventId);
    const organizerLinksOf = groupBy(organizerLinks, (link) => link.eventId);
    return new Map(
      events.map((event) => {
        const eventTerms = (termLinksOf.get(event.id) ?? [])
          .flatMap((link) => terms.get(link.termId) ?? [])
          .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
        return [
          event.id,
          {
            categories: eventTerms.filter((term) => term.taxonomy === CATEGORIES.taxonomy),
            tags: eventTerms.filter((term) => term.taxonomy === TAGS.taxonomy),
            venue: event.venueId ? visible(venues.get(event.venueId)) : undefined,
            organizers: (organizerLinksOf.get(event.id) ?? []).flatMap(
              (link) => visible(organizers.get(link.organizerId)) ?? [],
            ),
          },
        ];
      }),
    );
  }
}

/** Per kind, for the cache that requests share: memory stays small whatever the data. */
const SHARED_MAX_PER_KIND = 5_000;

/**
 * Venue, organizer and term records, mapped once and re-used: across the
 * batches of one long read (a feed), or by every read of one language and
 * host while the data version holds (`shared`, see sharedLinks). Each kind is
 * capped, so memory stays bounded whatever the data's size.
 */
export class LinkedRecordCache {
  readonly terms = new Map<number, TermRecord>();
  readonly organizers = new Map<number, OrganizerRecord>();
  readonly venues = new Map<number, VenueRecord>();
  /**
   * Moved by every `drop`: a load that began before a drop may hold a state
   * older than the one dropped, so it is answered but not kept.
   */
  private generation = 0;

  constructor(
    readonly maxPerKind = 20_000,
    /** Shared by concurrent requests: records are frozen, so no answer can change another's. */
    readonly shared = false,
  ) {}

  get currentGeneration(): number {
    return this.generation;
  }

  /** Forgets these records (they changed); later reads load them again. */
  drop(records: Iterable<{ kind: 'venue' | 'organizer' | 'term'; id: number }>): void {
    this.generation++;
    const stores = { venue: this.venues, organizer: this.organizers, term: this.terms };
    for (const { kind, id } of records) stores[kind].delete(id);
  }
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

/** Records by ID: those in `store` from there, the rest loaded (and kept while there is room). */
export async function cachedRecords<R extends object>(
  cache: LinkedRecordCache | undefined,
  store: Map<number, R> | undefined,
  ids: number[],
  load: (ids: number[]) => Promise<Map<number, R>>,
): Promise<Map<number, R>> {
  if (!cache || !store) return load(ids);
  const missing = [...new Set(ids)].filter((id) => !store.has(id));
  const generation = cache.currentGeneration;
  const loaded = missing.length > 0 ? await load(missing) : new Map<number, R>();
  if (cache.currentGeneration === generation) {
    if (store.size + loaded.size > cache.maxPerKind) store.clear();
    for (const [id, record] of loaded) store.set(id, cache.shared ? deepFreeze(record) : record);
  }
  return new Map(
    ids.flatMap((id) => {
      const record = store.get(id) ?? loaded.get(id);
      return record ? [[id, record] as const] : [];
    }),
  );
}

function deepFreeze<T extends object>(value: T): T {
  for (const member of Object.values(value)) {
    if (member !== null && typeof member === 'object' && !Object.isFrozen(member))
      deepFreeze(member);
  }
  return Object.freeze(value);
}
