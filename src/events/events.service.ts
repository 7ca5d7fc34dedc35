import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DateTime, FixedOffsetZone } from 'luxon';
import { DataSource, EntityManager } from 'typeorm';
import { AccessPolicy } from '../auth/policy';
import { CountCacheService } from '../common/cache/count-cache.service';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { assertPageExists, ListPage, pageWindow } from '../common/pagination/list-page';
import { nowEpoch, parseZone } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import { writeTransaction } from '../database/write-transaction';
import { rowsWhereIn } from '../database/entity-rows';
import { OrganizersService } from '../organizers/organizers.service';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import { adjustTermCounts, countedTermsOf, lockTermsForCount } from '../terms/term-counts';
import { TermLinksService } from '../terms/term-links.service';
import { VenuesService } from '../venues/venues.service';
import {
  assertCanCreate,
  assertCanEdit,
  assertCanSee,
  assertVisibleFilter,
  editContext,
  listStatusScope,
} from '../posts/post-access';
import { findPostId, findPostOrFail, PostRef, writePostTexts } from '../posts/post-store';
import { postColumns } from '../posts/post-write';
import { searchWords } from '../posts/search';
import { eventWindow } from './date-window';
import { CreateEventDto } from './dto/create-event.dto';
import { ListEventsQueryDto } from './dto/list-events.query.dto';
import { UpdateEventDto } from './dto/update-event.dto';
import { EventOrganizer } from './entities/event-organizer.entity';
import { EventTerm } from './entities/event-term.entity';
import { Event } from './entities/event.entity';
import { EventListFilters, eventListQuery, orderEvents } from './event-list-query';
import { passwordKey, passwordMatches } from './event-password';
import {
  deleteEvent,
  EVENTS,
  LinkChanges,
  loadEvents,
  lockEventRow,
  writeEventLinks,
} from './event-store';
import { eventColumns } from './event-write';
import { EventLinks, EventMapOptions, EventRecord, mapEvent } from './event.mapper';

/** Default `geoloc_radius` in km (contract §5.1). */
const DEFAULT_RADIUS_KM = 10;

/** Up to this offset a list reads its page beside its total (see list). */
const PARALLEL_PAGE_MAX_OFFSET = 10_000;

interface EventLinkRows {
  termLinks: EventTerm[];
  organizerLinks: EventOrganizer[];
}

/** Events (contract §2–§7): each flow looks up and authorises, writes, then maps. */
@Injectable()
export class EventsService {
  private readonly passwordKey: Buffer;
  private readonly writeSettings: { siteZone: string; passwordKey: Buffer };

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly terms: TermLinksService,
    private readonly venues: VenuesService,
    private readonly organizers: OrganizersService,
    private readonly counts: CountCacheService,
  ) {
    this.passwordKey = passwordKey(config.auth.jwtSecret);
    this.writeSettings = { siteZone: config.siteTimezone, passwordKey: this.passwordKey };
  }

  /**
   * One page of events (contract §5, §5.1): the page's IDs first, from one
   * indexed query whose rows are events only (links are tested with EXISTS),
   * then the records and everything they embed in a fixed number of queries.
   */
  async list(query: ListEventsQueryDto, ctx: RequestContext): Promise<ListPage<EventRecord>> {
    const edit = editContext(query.context, ctx);
    const filters = await this.listFilters(query, ctx);
    const window = pageWindow(query, this.config.maxPerPage);
    const matching = eventListQuery(this.dataSource.manager, filters);
    // Exact, but counted only when the data changed since (the default window is day-granular).
    const total = () =>
      this.counts.count(`events:${JSON.stringify(filters)}`, () => matching.clone().getCount());
    const pageIds = async () => {
      const rows = await orderEvents(
        matching.clone().select('e.id', 'id'),
        filters.include !== undefined,
      )
        .offset(window.offset)
        .limit(window.perPage)
        .getRawMany<{ id: number | string }>();
      return rows.map((row) => Number(row.id));
    };
    // The total and the page are independent reads: one round trip for both, unless
    // the offset is so deep that a page past the end would cost a long index scan.
    const [count, ids] =
      window.offset <= PARALLEL_PAGE_MAX_OFFSET
        ? await Promise.all([total(), pageIds()])
        : [await total(), undefined];
    assertPageExists(window, count, 'event-archive-page-not-found');
    const page = ids ?? (await pageIds());
    const [loaded, linkRows] = await Promise.all([
      loadEvents(this.dataSource.manager, page),
      this.linkRows(page),
    ]);
    const items = await this.mapEvents(
      // An event deleted between the page query and this read is left out, not a 500.
      page.flatMap((id) => loaded.get(id) ?? []),
      ctx,
      (event) => ({
        withTranslations: edit && AccessPolicy.canEditItem(ctx.user, event),
        blanked: this.isLocked(event, ctx, query.password),
      }),
      linkRows,
    );
    return new ListPage('events', items, count, window);
  }

  /**
   * Single read (contract §4, §6): 404, 403 for an event the caller may not
   * see or a protected one without its password, else the record with JSON-LD.
   */
  async get(
    ref: PostRef,
    ctx: RequestContext,
    options: { context?: 'view' | 'edit'; password?: string },
  ): Promise<EventRecord> {
    const edit = editContext(options.context, ctx);
    const manager = this.dataSource.manager;
    const id = await findPostId(manager, EVENTS, ref, ctx.language);
    // The link rows need only the ID: read beside the event (and dropped if it may not be shown).
    const [event, linkRows] = await Promise.all([
      findPostOrFail(manager, EVENTS, { id }, ctx.language),
      this.linkRows(id ? [id] : []),
    ]);
    assertCanSee(ctx.user, event, {
      notAccessible: 'event-not-accessible',
      trashed: 'event-no-longer-available',
    });
    if (edit) assertCanEdit(ctx.user, event);
    if (this.isLocked(event, ctx, options.password)) throw new ApiError('event-password-protected');
    const [record] = await this.mapEvents(
      [event],
      ctx,
      () => ({ withJsonLd: true, withTranslations: edit }),
      linkRows,
    );
    return record;
  }

  /** Create: the event, its texts, links and any inline venue, organizers or terms in one transaction. */
  async create(input: CreateEventDto, ctx: RequestContext): Promise<EventRecord> {
    assertCanCreate(ctx.user);
    const columns = {
      ...eventColumns(input, undefined, this.writeSettings),
      ...postColumns(input, ctx, this.config.siteTimezone, true),
    };
    const id = await writeTransaction(this.dataSource, async (manager) => {
      const links = await this.resolveLinks(manager, input, ctx);
      await lockTermsForCount(manager, [...(links.categoryIds ?? []), ...(links.tagIds ?? [])]);
      const parentId = await this.resolveParent(manager, input.post_parent, undefined);
      const event = await manager.save(
        Event,
        manager.create(Event, { ...columns, venueId: links.venueId ?? null, parentId }),
      );
      event.translations = [];
      await writePostTexts(manager, EVENTS, event, input, ctx.language);
      await writeEventLinks(manager, event.id, links, true);
      await adjustTermCounts(manager, [], await countedTermsOf(manager, event.id));
      return event.id;
    });
    return this.reload(id, ctx);
  }

  /**
   * Partial update (POST, PUT and PATCH alike), all in one transaction: a
   * failing part leaves the event as it was. Fields left out keep their
   * values; sending `status` restores a trashed event.
   */
  async update(ref: PostRef, input: UpdateEventDto, ctx: RequestContext): Promise<EventRecord> {
    const current = await findPostOrFail(this.dataSource.manager, EVENTS, ref, ctx.language);
    assertCanEdit(ctx.user, current);
    const post = postColumns(input, ctx, this.config.siteTimezone, false);
    await writeTransaction(this.dataSource, async (manager) => {
      await lockEventRow(manager, current.id);
      // Re-read inside the transaction: a retry must not reuse texts changed by the failed attempt.
      const event = await findPostOrFail(manager, EVENTS, { id: current.id }, ctx.language);
      const counted = await countedTermsOf(manager, event.id);
      const columns = { ...eventColumns(input, event, this.writeSettings), ...post };
      const links = await this.resolveLinks(manager, input, ctx);
      await lockTermsForCount(manager, [
        ...counted,
        ...(links.categoryIds ?? []),
        ...(links.tagIds ?? []),
      ]);
      const parentId = await this.resolveParent(manager, input.post_parent, event.id);
      if (links.venueId !== undefined) columns.venueId = links.venueId;
      if (parentId !== undefined) columns.parentId = parentId;
      await writePostTexts(manager, EVENTS, event, input, ctx.language);
      await manager.update(Event, event.id, columns);
      await writeEventLinks(manager, event.id, links);
      await adjustTermCounts(manager, counted, await countedTermsOf(manager, event.id));
    });
    return this.reload(current.id, ctx);
  }

  /**
   * DELETE (contract §7): trash (410 when already trashed) or, with `force`
   * (editors+), delete for good and answer the record as it was.
   */
  async remove(
    ref: PostRef,
    force: boolean | undefined,
    ctx: RequestContext,
  ): Promise<EventRecord> {
    const event = await findPostOrFail(this.dataSource.manager, EVENTS, ref, ctx.language);
    assertCanEdit(ctx.user, event);
    if (force && !AccessPolicy.canForceDelete(ctx.user)) throw ApiError.forbidden();
    if (!force && event.status === 'trash') throw new ApiError('event-is-in-trash');
    if (!force) {
      await writeTransaction(this.dataSource, async (manager) => {
        await lockEventRow(manager, event.id);
        const counted = await countedTermsOf(manager, event.id);
        await manager.update(Event, event.id, { status: 'trash', modifiedAt: nowEpoch() });
        await adjustTermCounts(manager, counted, []);
      });
      return this.reload(event.id, ctx);
    }
    const [record] = await this.mapEvents([event], ctx, () => ({}));
    await writeTransaction(this.dataSource, async (manager) => {
      await lockEventRow(manager, event.id);
      const counted = await countedTermsOf(manager, event.id);
      await deleteEvent(manager, event.id);
      await adjustTermCounts(manager, counted, []);
    });
    return record;
  }

  /** The list filters, checked (400 naming the parameter) and resolved to IDs. */
  private async listFilters(
    query: ListEventsQueryDto,
    ctx: RequestContext,
  ): Promise<EventListFilters> {
    const scope = listStatusScope(ctx.user, query.status);
    assertTogether(query, 'geoloc_lat', 'geoloc_lng');
    if (query.geoloc_radius !== undefined && query.geoloc_lat === undefined) {
      throw ApiError.invalid('geoloc_radius', 'bothOrNeither', { other: 'geoloc_lat, geoloc_lng' });
    }
    const categoryIds = query.categories?.length
      ? await this.terms.idsForFilter(CATEGORIES, query.categories, 'categories')
      : undefined;
    const tagIds = query.tags?.length
      ? await this.terms.idsForFilter(TAGS, query.tags, 'tags')
      : undefined;
    await assertAllFound('venue', query.venue, (ids) => this.venues.recordsByIds(ids, ctx));
    await assertAllFound('organizer', query.organizer, (ids) =>
      this.organizers.recordsByIds(ids, ctx),
    );
    if (query.post_parent !== undefined) {
      await assertVisibleFilter(
        this.dataSource.manager,
        Event,
        query.post_parent,
        ctx.user,
        'post_parent',
      );
    }
    const words = searchWords(query.search ?? '');
    const siteZone = parseZone(this.config.siteTimezone) ?? FixedOffsetZone.utcInstance;
    return {
      scope,
      include: query.include?.length ? query.include : undefined,
      window: eventWindow(query, siteZone, DateTime.now()),
      search: words.length > 0 ? { words, language: ctx.language } : undefined,
      categoryIds,
      tagIds,
      venueIds: query.venue?.length ? query.venue : undefined,
      organizerIds: query.organizer?.length ? query.organizer : undefined,
      featured: query.featured,
      ticketed: query.ticketed,
      parentId: query.post_parent,
      geoloc: query.geoloc,
      near:
        query.geoloc_lat !== undefined && query.geoloc_lng !== undefined
          ? {
              lat: query.geoloc_lat,
              lng: query.geoloc_lng,
              radiusKm: query.geoloc_radius ?? DEFAULT_RADIUS_KM,
            }
          : undefined,
    };
  }

  /** Protected, and the caller neither may edit it nor sent its password. */
  private isLocked(event: Event, ctx: RequestContext, password: string | undefined): boolean {
    return (
      event.passwordHash !== null &&
      !AccessPolicy.canEditItem(ctx.user, event) &&
      !passwordMatches(this.passwordKey, event.passwordHash, password)
    );
  }

  /** Venue, organizers, categories and tags, in the body's order, inside the write's transaction. */
  private async resolveLinks(
    manager: EntityManager,
    input: UpdateEventDto,
    ctx: RequestContext,
  ): Promise<LinkChanges> {
    const venueId = await this.venues.resolveForEvent(manager, input.venue, ctx);
    const organizerIds = await this.organizers.resolveForEvent(manager, input.organizer, ctx);
    const categoryIds = await this.terms.resolveForEvent(
      manager,
      CATEGORIES,
      input.categories,
      ctx,
    );
    const tagIds = await this.terms.resolveForEvent(manager, TAGS, input.tags, ctx);
    return { venueId, organizerIds, categoryIds, tagIds };
  }

  /** `post_parent`: 0 clears it; otherwise an existing event other than this one (else 400). */
  private async resolveParent(
    manager: EntityManager,
    value: number | undefined,
    selfId: number | undefined,
  ): Promise<number | null | undefined> {
    if (value === undefined) return selfId === undefined ? null : undefined;
    if (value === 0) return null;
    if (value === selfId) throw ApiError.invalid('post_parent', 'ownParent');
    if (!(await manager.exists(Event, { where: { id: value } })))
      throw ApiError.invalid('post_parent', 'notFound');
    return value;
  }

  private async reload(id: number, ctx: RequestContext): Promise<EventRecord> {
    const event = await findPostOrFail(this.dataSource.manager, EVENTS, { id }, ctx.language);
    const [record] = await this.mapEvents([event], ctx, () => ({}));
    return record;
  }

  /** Maps events with what they embed, loaded for all of them at once (no N+1). */
  private async mapEvents(
    events: Event[],
    ctx: RequestContext,
    options: (event: Event) => Partial<EventMapOptions>,
    linkRows?: EventLinkRows,
  ): Promise<EventRecord[]> {
    const links = await this.loadLinks(
      events,
      linkRows ?? (await this.linkRows(events.map((event) => event.id))),
      ctx,
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
  private async linkRows(ids: number[]): Promise<EventLinkRows> {
    if (ids.length === 0) return { termLinks: [], organizerLinks: [] };
    const manager = this.dataSource.manager;
    const [termLinks, organizerLinks] = await Promise.all([
      rowsWhereIn(manager, EventTerm, 'eventId', ids),
      rowsWhereIn(manager, EventOrganizer, 'eventId', ids, 'position'),
    ]);
    return { termLinks, organizerLinks };
  }

  /**
   * The terms, venue and organizers of the events, in the same few queries
   * whatever their number. Venues and organizers the caller may not see are left out.
   */
  private async loadLinks(
    events: Event[],
    { termLinks, organizerLinks }: EventLinkRows,
    ctx: RequestContext,
  ): Promise<Map<number, EventLinks>> {
    if (events.length === 0) return new Map();
    const [terms, organizers, venues] = await Promise.all([
      this.terms.recordsByIds(
        termLinks.map((link) => link.termId),
        ctx,
      ),
      this.organizers.recordsByIds(
        organizerLinks.map((link) => link.organizerId),
        ctx,
      ),
      this.venues.recordsByIds(
        events.flatMap((event) => (event.venueId ? [event.venueId] : [])),
        ctx,
      ),
    ]);
    const visible = <R extends { author: string; status: Event['status'] }>(record?: R) =>
      record &&
      AccessPolicy.canSeeItem(ctx.user, { authorId: Number(record.author), status: record.status })
        ? record
        : undefined;
    return new Map(
      events.map((event) => {
        const eventTerms = termLinks
          .filter((link) => link.eventId === event.id)
          .flatMap((link) => terms.get(link.termId) ?? [])
          .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
        return [
          event.id,
          {
            categories: eventTerms.filter((term) => term.taxonomy === CATEGORIES.taxonomy),
            tags: eventTerms.filter((term) => term.taxonomy === TAGS.taxonomy),
            venue: event.venueId ? visible(venues.get(event.venueId)) : undefined,
            organizers: organizerLinks
              .filter((link) => link.eventId === event.id)
              .flatMap((link) => visible(organizers.get(link.organizerId)) ?? []),
          },
        ];
      }),
    );
  }
}

/** Two parameters that only work together: one without the other is 400. */
function assertTogether<T extends object>(query: T, a: keyof T & string, b: keyof T & string) {
  if ((query[a] === undefined) === (query[b] === undefined)) return;
  const [sent, missing] = query[a] === undefined ? [b, a] : [a, b];
  throw ApiError.invalid(sent, 'bothOrNeither', { other: missing });
}

/** Every ID must name a record (400 `name` otherwise). */
async function assertAllFound(
  name: string,
  ids: number[] | undefined,
  find: (ids: number[]) => Promise<Map<number, unknown>>,
): Promise<void> {
  if (!ids?.length) return;
  const unique = [...new Set(ids)];
  if ((await find(unique)).size !== unique.length) throw ApiError.invalid(name, 'notFound');
}
