import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccessPolicy } from '../auth/policy';
import { CountCacheService } from '../common/cache/count-cache.service';
import { DataVersionService } from '../common/cache/data-version.service';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { assertPageExists, ListPage, pageWindow } from '../common/pagination/list-page';
import { appConfig } from '../config/app.config';
import { type KeptTerms, TermLinksService } from '../terms/term-links.service';
import { assertCanEdit, assertCanSee, editContext } from '../posts/post-access';
import { findPostId, findPostOrFail, PostRef } from '../posts/post-store';
import { ListEventsQueryDto } from './dto/list-events.query.dto';
import { Event } from './entities/event.entity';
import {
  EventListFilters,
  eventListQuery,
  keyedFilters,
  EventOrder,
  orderEvents,
  resolveListFilters,
  SearchPlan,
} from './event-list-query';
import { chooseSearchPlan } from './search-plan';
import { SearchGate } from '../common/limits/search-gate';
import { EventRecordsService, EventRows, LinkedRecordCache } from './event-records.service';
import { passwordKey, passwordMatches } from './event-password';
import { EVENTS, loadEventRows, loadEvents } from './event-store';
import { EventPage, readEventPage } from './event-page';
import type { EventRecord } from './event.mapper';

/** Up to this offset a list reads its page beside its total (see list). */
const PARALLEL_PAGE_MAX_OFFSET = 10_000;

/**
 * Event reads (docs/api.md §4–§6): the list and single read, and the readers
 * other modules call (feeds, webhooks, idempotency, iCalendar). Writes are
 * EventWrites'.
 */
@Injectable()
export class EventsService {
  private readonly passwordKey: Buffer;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly terms: TermLinksService,
    private readonly counts: CountCacheService,
    private readonly records: EventRecordsService,
    private readonly searchGate: SearchGate,
    private readonly versions: DataVersionService,
  ) {
    this.passwordKey = passwordKey(config.auth.jwtSecret);
  }

  /**
   * One page of events (docs/api.md §5, §5.1), paged by one indexed query
   * whose rows are events only (links are tested with EXISTS). Without search
   * words, that query is read in the statement that reads the page's events,
   * texts and link IDs (readEventPage); a search's IDs come first (its total
   * may come with them), then the records by ID. What the records embed comes
   * from the shared linked-record cache or a fixed number of queries.
   */
  async list(query: ListEventsQueryDto, ctx: RequestContext): Promise<ListPage<EventRecord>> {
    // Term filters as resolved before at any version (a version read already: at that one),
    // checked against the page's version once it is read.
    const kept = this.versions.isRead(ctx) ? await this.versions.current(ctx) : 'any';
    const filters = await this.listFilters(query, ctx, kept);
    const read = (resolved: EventListFilters) =>
      this.searchGate.run(resolved.search !== undefined, () => this.listPage(query, resolved, ctx));
    if (!filters.termVersions) return read(filters);
    // A page past the end (a 404) may be one of stale terms too: it is checked the same way.
    const answer = await read(filters).catch((error: unknown) => {
      if (error instanceof ApiError) return error;
      throw error;
    });
    const version = await this.versions.current(ctx);
    if (filters.termVersions.some((at) => at !== version)) {
      // Resolved at another version than the page's: resolved now, and the page read again
      // if a term filter now names other terms (a slug moved; a term deleted: a 400).
      const fresh = await this.listFilters(query, ctx, 'read');
      if (!sameTerms(fresh, filters)) return read(fresh);
    }
    if (answer instanceof ApiError) throw answer;
    return answer;
  }

  private async listPage(
    query: ListEventsQueryDto,
    filters: EventListFilters,
    ctx: RequestContext,
  ): Promise<ListPage<EventRecord>> {
    const edit = editContext(query.context, ctx);
    const window = pageWindow(query, this.config.maxPerPage);
    const order = listOrder(query, filters);
    const matching = eventListQuery(this.dataSource.manager, filters, {
      scored: order === 'relevance',
      searchPlan: await this.searchPlan(filters, order, ctx),
    });
    const pageQuery = () =>
      orderEvents(matching.clone().select('e.id', 'id'), order)
        .offset(window.offset)
        .limit(window.perPage);
    const pageIds = async () =>
      (await pageQuery().getRawMany<{ id: number | string }>()).map((row) => Number(row.id));
    // A search's total costs what its page costs (every match is read to order them), and
    // a search box asks each query once: a total not kept yet comes with the page, from
    // the same statement.
    let counted: number[] | undefined;
    const countWithPage = async () => {
      const rows = await pageQuery()
        .addSelect('COUNT(*) OVER ()', 'total')
        .getRawMany<{ id: number | string; total: number | string }>();
      counted = rows.map((row) => Number(row.id));
      if (rows.length > 0) return Number(rows[0].total);
      return window.offset === 0 ? 0 : matching.clone().getCount();
    };
    // Exact, but counted only when the data changed since (the default window is day-granular).
    const total = () =>
      this.counts.count(
        countKey(filters),
        filters.search ? countWithPage : () => matching.clone().getCount(),
        ctx,
      );
    const readPage = (versioned: boolean) =>
      readEventPage(
        this.dataSource.manager,
        pageQuery(),
        order === 'id' ? 'id' : 'start',
        versioned ? this.versions.versionSql() : undefined,
      );
    let count: number;
    let page: EventPage;
    if (filters.search) {
      count = await total();
      assertPageExists(window, count, 'event-archive-page-not-found');
      page = await this.pageOf(counted ?? (await pageIds()));
    } else if (window.offset > PARALLEL_PAGE_MAX_OFFSET) {
      // So deep that a page past the end would cost a long index scan: the total first.
      count = await total();
      assertPageExists(window, count, 'event-archive-page-not-found');
      page = await readPage(false);
    } else {
      // The page first: the total asks for the data version, which the page's statement
      // reads when the request has not (the cached total then costs no round trip).
      const read = this.pageWithVersion(ctx, readPage);
      [page, count] = await Promise.all([read, total()]);
      assertPageExists(window, count, 'event-archive-page-not-found');
    }
    const items = await this.records.map(
      page.events,
      ctx,
      (event) => ({
        withTranslations: edit && AccessPolicy.canEditItem(ctx.user, event),
        blanked: this.isLocked(event, ctx, query.password),
      }),
      page.links,
      await this.records.sharedLinks(ctx),
      await this.records.sharedListRecords(ctx),
    );
    return new ListPage('events', items, count, window, true);
  }

  /**
   * A page read with the request's data version in its statement, when the
   * request has not read the version yet: the version is then the snapshot's
   * the page was read at, so nothing kept under it (the total, the ETag) is
   * newer than the page. A page without events carries no version: the
   * version is read alone, then the page again, in that order.
   */
  private pageWithVersion(
    ctx: RequestContext,
    readPage: (versioned: boolean) => Promise<EventPage>,
  ): Promise<EventPage> {
    if (this.versions.isRead(ctx)) return readPage(false);
    const read = (async () => {
      const page = await readPage(true);
      if (page.version !== undefined) return { page, version: page.version };
      const version = await this.versions.current();
      return { page: await readPage(false), version };
    })();
    this.versions.provide(
      ctx,
      read.then((got) => got.version),
    );
    return read.then((got) => got.page);
  }

  /** The events of a page by their IDs, in that order, with their link rows. */
  private async pageOf(ids: number[]): Promise<EventPage> {
    const [loaded, links] = await Promise.all([
      loadEvents(this.dataSource.manager, ids),
      this.records.linkRows(ids),
    ]);
    // An event deleted between the page query and this read is left out, not a 500.
    return { events: ids.flatMap((id) => loaded.get(id) ?? []), links };
  }

  /**
   * How a search in start order is read (`chooseSearchPlan`), with the total of
   * the same list without the search as the window's size: kept per filters and
   * data version, so a search box's next words reuse it.
   */
  private async searchPlan(
    filters: EventListFilters,
    order: EventOrder,
    ctx: RequestContext,
  ): Promise<SearchPlan> {
    if (!filters.search || order === 'relevance') return 'matches';
    const plain: EventListFilters = { ...filters, search: undefined };
    return chooseSearchPlan(this.dataSource.manager, filters.search.words, () =>
      this.matchCount(plain, ctx),
    );
  }

  /**
   * Single read (docs/api.md §4, §6): 404, 403 for an event the caller may not
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
    const [event, linkRows, linked] = await Promise.all([
      findPostOrFail(manager, EVENTS, { id }, ctx.language),
      this.records.linkRows(id ? [id] : []),
      this.records.sharedLinks(ctx),
    ]);
    assertCanSee(ctx.user, event, {
      notAccessible: 'event-not-accessible',
      trashed: 'event-no-longer-available',
    });
    if (edit) assertCanEdit(ctx.user, event);
    if (this.isLocked(event, ctx, options.password)) throw new ApiError('event-password-protected');
    const [record] = await this.records.map(
      [event],
      ctx,
      () => ({ withJsonLd: true, withTranslations: edit }),
      linkRows,
      linked,
    );
    return record;
  }

  /**
   * Events as the changes feed shows them (docs/api.md §12): only those the
   * caller may read by ID (trashed ones count as gone), each as its single
   * read shows it but without JSON-LD, protected ones blanked as in lists.
   */
  async feedRecords(
    ids: number[],
    ctx: RequestContext,
    linked?: LinkedRecordCache,
  ): Promise<Map<number, EventRecord>> {
    // The link rows need only the IDs: read beside the events (those of unreadable ones are unused).
    const [loaded, linkRows] = await Promise.all([
      loadEventRows(this.dataSource.manager, ids),
      this.records.linkRows(ids),
    ]);
    const readable = [...loaded.values()].filter(
      (event) => event.status !== 'trash' && AccessPolicy.canSeeItem(ctx.user, event),
    );
    const shown = new Set(readable.map((event) => event.id));
    const records = await this.records.map(
      readable,
      ctx,
      (event) => ({ blanked: this.isLocked(event, ctx, undefined) }),
      {
        termLinks: linkRows.termLinks.filter((link) => shown.has(link.eventId)),
        organizerLinks: linkRows.organizerLinks.filter((link) => shown.has(link.eventId)),
      },
      linked,
    );
    return new Map(records.map((record) => [record.id, record]));
  }

  /**
   * Events as their single read with `context=edit` shows them to a caller
   * who may edit them (JSON-LD and `translations`), trashed ones included,
   * read through `manager` (a write's transaction: its uncommitted state).
   * `rows`: the write's own rows of its events, read since its last change
   * (WRITTEN_EVENT_ROWS); when they hold these events (a bulk run's hold
   * every event of its operations), nothing is read again.
   */
  async editRecords(
    manager: EntityManager,
    ids: number[],
    ctx: RequestContext,
    rows?: EventRows,
  ): Promise<Map<number, EventRecord>> {
    const kept = rows && ids.every((id) => rows.events.has(id));
    const records = this.records.mapRows(
      kept ? rowsOf(rows, ids) : await this.records.loadRows(manager, ids),
      ctx,
      () => ({ withJsonLd: true, withTranslations: true }),
    );
    return new Map(records.map((record) => [record.id, record]));
  }

  /**
   * How many events these filters match: the total `/events` answers for
   * them, kept with it per data version (CountCacheService). An index read.
   */
  matchCount(filters: EventListFilters, ctx: RequestContext): Promise<number> {
    const count = () => eventListQuery(this.dataSource.manager, filters).getCount();
    return this.counts.count(
      countKey(filters),
      () => this.searchGate.run(filters.search !== undefined, count),
      ctx,
    );
  }

  /**
   * The list filters of `/events`, checked (400 naming the parameter) and
   * resolved to IDs. `keptTerms`: which kept resolutions of the term filters
   * may be taken (TermLinksService.idsForFilter).
   */
  listFilters(
    query: ListEventsQueryDto,
    ctx: RequestContext,
    keptTerms: KeptTerms = 'read',
  ): Promise<EventListFilters> {
    return resolveListFilters(query, ctx, {
      manager: this.dataSource.manager,
      siteTimezone: this.config.siteTimezone,
      terms: this.terms,
      keptTerms,
    });
  }

  /**
   * Events by ID as a list shows them to the caller (blanked where protected
   * and `password` is not theirs), with what they embed, in a fixed number of
   * queries whatever their number. IDs that name no event are left out.
   */
  async listedEvents(
    ids: number[],
    ctx: RequestContext,
    password: string | undefined,
    linked?: LinkedRecordCache,
  ): Promise<Array<{ event: Event; record: EventRecord }>> {
    const { events, links } = await this.pageOf(ids);
    const records = await this.records.map(
      events,
      ctx,
      (event) => ({ blanked: this.isLocked(event, ctx, password) }),
      links,
      linked,
    );
    return events.map((event, i) => ({ event, record: records[i] }));
  }

  /**
   * The test `listedEvents` blanks records by, for readers that build their
   * own output from rows (the iCalendar feed): protected, and the caller
   * neither may edit it nor sent its password.
   */
  lockTest(
    ctx: RequestContext,
    password: string | undefined,
  ): (event: Pick<Event, 'passwordHash' | 'authorId' | 'status'>) => boolean {
    return (event) => this.isLocked(event, ctx, password);
  }

  /** Protected, and the caller neither may edit it nor sent its password. */
  private isLocked(
    event: Pick<Event, 'passwordHash' | 'authorId' | 'status'>,
    ctx: RequestContext,
    password: string | undefined,
  ): boolean {
    return (
      event.passwordHash !== null &&
      !AccessPolicy.canEditItem(ctx.user, event) &&
      !passwordMatches(this.passwordKey, event.passwordHash, password)
    );
  }
}

/** By ID with `include`; by relevance when asked with search words; else by start (docs/api.md §5.1). */
function listOrder(query: ListEventsQueryDto, filters: EventListFilters): EventOrder {
  if (filters.include) return 'id';
  return query.orderby === 'relevance' && filters.search ? 'relevance' : 'start';
}

/** Whether two resolutions of the same filters name the same terms. */
function sameTerms(a: EventListFilters, b: EventListFilters): boolean {
  const same = (x?: number[], y?: number[]) => String(x) === String(y);
  return same(a.categoryIds, b.categoryIds) && same(a.tagIds, b.tagIds);
}

/** The key of a list total in the count cache: lists and feeds of the same filters share it. */
function countKey(filters: EventListFilters): string {
  return `events:${JSON.stringify(keyedFilters(filters))}`;
}

/** The rows of `ids` among loaded rows that hold them all: their links and linked rows may hold more. */
function rowsOf(rows: EventRows, ids: number[]): EventRows {
  if (rows.events.size === ids.length) return rows;
  return { ...rows, events: new Map(ids.map((id) => [id, rows.events.get(id)!])) };
}
