import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccessPolicy } from '../auth/policy';
import { recordChanges } from '../changes/change-tracker';
import { CountCacheService } from '../common/cache/count-cache.service';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { withTag } from '../common/http/tagged-record';
import { assertPrecondition, writeAnswer } from '../common/http/write-precondition';
import { assertPageExists, ListPage, pageWindow } from '../common/pagination/list-page';
import { nowEpoch } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import { insertRow } from '../database/entity-rows';
import { writeTransaction } from '../database/write-transaction';
import { OrganizersService } from '../organizers/organizers.service';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import {
  adjustTermCounts,
  countedTermsOfEvents,
  countedTermsOfNewEvent,
  countedTermTaxonomiesOf,
  lockTermsForCount,
  lockTermsReadingTaxonomies,
} from '../terms/term-counts';
import { TermLinksService } from '../terms/term-links.service';
import { VenuesService } from '../venues/venues.service';
import { assertCanCreate, assertCanEdit, assertCanSee, editContext } from '../posts/post-access';
import { assertExternalKeyFree } from '../posts/external-keys';
import { findPostId, findPostOrFail, PostRef, writePostTexts } from '../posts/post-store';
import { postColumns } from '../posts/post-write';
import { CreateEventDto } from './dto/create-event.dto';
import { ListEventsQueryDto } from './dto/list-events.query.dto';
import { UpdateEventDto } from './dto/update-event.dto';
import { Event } from './entities/event.entity';
import { EventTranslation } from './entities/event-translation.entity';
import {
  EventListFilters,
  eventListQuery,
  EventOrder,
  orderEvents,
  resolveListFilters,
} from './event-list-query';
import {
  EventLinkRows,
  EventRecordsService,
  EventRows,
  LinkedRecordCache,
  WRITTEN_EVENT_ROWS,
} from './event-records.service';
import { passwordKey, passwordMatches } from './event-password';
import {
  deleteEvent,
  EVENTS,
  LinkChanges,
  loadEventRows,
  loadEvents,
  lockEventRow,
  writeEventLinks,
} from './event-store';
import { namedTermIds, taxonomiesOf, termCountsMayMove, termIdsOf } from './event-term-writes';
import { eventColumns } from './event-write';
import type { EventRecord } from './event.mapper';
import { RecurrenceService } from './recurrence/recurrence.service';

/** Up to this offset a list reads its page beside its total (see list). */
const PARALLEL_PAGE_MAX_OFFSET = 10_000;

/** Events (docs/api.md §2–§7): each flow looks up and authorises, writes, then maps. */
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
    private readonly records: EventRecordsService,
    private readonly recurrence: RecurrenceService,
  ) {
    this.passwordKey = passwordKey(config.auth.jwtSecret);
    this.writeSettings = { siteZone: config.siteTimezone, passwordKey: this.passwordKey };
  }

  /**
   * One page of events (docs/api.md §5, §5.1): the page's IDs first, from one
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
      this.counts.count(
        `events:${JSON.stringify(filters)}`,
        () => matching.clone().getCount(),
        ctx,
      );
    const pageIds = async () => {
      const rows = await orderEvents(
        matching.clone().select('e.id', 'id'),
        listOrder(query, filters),
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
    const [loaded, linkRows, linked] = await Promise.all([
      loadEvents(this.dataSource.manager, page),
      this.records.linkRows(page),
      this.records.sharedLinks(ctx),
    ]);
    const items = await this.records.map(
      // An event deleted between the page query and this read is left out, not a 500.
      page.flatMap((id) => loaded.get(id) ?? []),
      ctx,
      (event) => ({
        withTranslations: edit && AccessPolicy.canEditItem(ctx.user, event),
        blanked: this.isLocked(event, ctx, query.password),
      }),
      linkRows,
      linked,
    );
    return new ListPage('events', items, count, window, true);
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
   * (WRITTEN_EVENT_ROWS); when they are the rows of exactly these events,
   * nothing is read again.
   */
  async editRecords(
    manager: EntityManager,
    ids: number[],
    ctx: RequestContext,
    rows?: EventRows,
  ): Promise<Map<number, EventRecord>> {
    const wanted = new Set(ids);
    const kept = rows?.events.size === wanted.size && ids.every((id) => rows.events.has(id));
    const records = this.records.mapRows(
      kept ? rows : await this.records.loadRows(manager, ids),
      ctx,
      () => ({ withJsonLd: true, withTranslations: true }),
    );
    return new Map(records.map((record) => [record.id, record]));
  }

  /** Create: the event, its texts, links and any inline venue, organizers or terms in one transaction. */
  async create(input: CreateEventDto, ctx: RequestContext): Promise<EventRecord> {
    assertCanCreate(ctx.user);
    const columns = {
      ...eventColumns(input, undefined, this.writeSettings),
      ...postColumns(input, ctx, this.config.siteTimezone, true),
    };
    const recurrence = this.recurrence.columnOf(input.recurrence, columns.timezone as string);
    const { answer, etag } = await writeTransaction(this.dataSource, async (manager) => {
      // The terms it names, write-locked in ID order (lockTermsForCount) and checked in one read.
      const checked = await lockTermsReadingTaxonomies(manager, namedTermIds(input));
      const links = await this.resolveLinks(manager, input, ctx, checked);
      await lockTermsForCount(
        manager,
        termIdsOf(links).filter((id) => !checked.has(id)),
      );
      const parentId = await this.resolveParent(manager, input.post_parent, undefined);
      await assertExternalKeyFree(manager, Event, columns, undefined);
      const event = {
        id: await insertRow(manager, Event, {
          ...columns,
          venueId: links.venueId ?? null,
          parentId,
        }),
        translations: [] as EventTranslation[],
      };
      await writePostTexts(manager, EVENTS, event, input, ctx.language);
      await writeEventLinks(manager, event.id, links, true);
      await adjustTermCounts(
        manager,
        [],
        countedTermsOfNewEvent(columns.status, termIdsOf(links)),
        taxonomiesOf(links),
      );
      if (recurrence) {
        await manager.update(Event, event.id, { recurrence });
        await this.recurrence.afterSeriesWrite(manager, event.id, false);
      }
      recordChanges(manager, [{ kind: 'event', id: event.id, action: 'created' }]);
      return this.written(manager, event.id, ctx, linkRowsOfNewEvent(event.id, links));
    });
    return withTag(answer, etag);
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
    const { answer, etag } = await writeTransaction(this.dataSource, async (manager) => {
      await lockEventRow(manager, current.id);
      await assertPrecondition(ctx.precondition, () => this.readRecord(manager, current.id, ctx));
      // Re-read inside the transaction: a retry must not reuse texts changed by the failed attempt.
      const event = await findPostOrFail(manager, EVENTS, { id: current.id }, ctx.language);
      // The event row is locked (lockEventRow): its counted terms are read without locking it again.
      const counted = await countedTermTaxonomiesOf(manager, event.id);
      const columns = { ...eventColumns(input, event, this.writeSettings), ...post };
      const countsMayMove = termCountsMayMove(input, columns.status, event);
      // Its counted and named terms, write-locked in ID order and checked in one read (see create).
      const checked = countsMayMove
        ? await lockTermsReadingTaxonomies(manager, [...counted.keys(), ...namedTermIds(input)])
        : new Map<number, string>();
      const links = await this.resolveLinks(manager, input, ctx, checked);
      await lockTermsForCount(
        manager,
        termIdsOf(links).filter((id) => !checked.has(id)),
      );
      const parentId = await this.resolveParent(manager, input.post_parent, event.id);
      if (links.venueId !== undefined) columns.venueId = links.venueId;
      if (parentId !== undefined) columns.parentId = parentId;
      const isOccurrence = event.seriesId !== null && event.seriesId !== event.id;
      if (isOccurrence) Object.assign(columns, this.recurrence.occurrenceColumns(input.recurrence));
      const recurrence = isOccurrence
        ? undefined
        : this.recurrence.columnOf(input.recurrence, columns.timezone ?? event.timezone);
      if (recurrence !== undefined) columns.recurrence = recurrence;
      if (recurrence === null) columns.seriesId = null;
      await assertExternalKeyFree(manager, Event, columns, event.id);
      await writePostTexts(manager, EVENTS, event, input, ctx.language);
      await manager.update(Event, event.id, { ...columns, revision: () => 'revision + 1' });
      await writeEventLinks(manager, event.id, links);
      if (countsMayMove) {
        await adjustTermCounts(
          manager,
          [...counted.keys()],
          await countedTermsOfEvents(manager, [event.id]),
          new Map([...checked, ...counted]),
        );
      }
      if (isOccurrence) await this.recurrence.occurrenceChanged(manager, event.seriesId as number);
      const restored = event.status === 'trash' && !!columns.status && columns.status !== 'trash';
      if (isOccurrence && restored) await this.recurrence.restoreOccurrence(manager, event);
      if (!isOccurrence && (event.recurrence !== null || recurrence)) {
        await this.recurrence.afterSeriesWrite(manager, event.id, event.recurrence !== null);
        if (restored) await this.recurrence.restoreOccurrences(manager, event.id);
      }
      recordChanges(manager, [{ kind: 'event', id: event.id, action: 'updated' }]);
      return this.written(manager, event.id, ctx);
    });
    return withTag(answer, etag);
  }

  /**
   * DELETE (docs/api.md §7): trash (410 when already trashed) or, with `force`
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
      const { answer, etag } = await writeTransaction(this.dataSource, async (manager) => {
        await lockEventRow(manager, event.id);
        await assertPrecondition(ctx.precondition, () => this.readRecord(manager, event.id, ctx));
        const counted = await countedTermTaxonomiesOf(manager, event.id);
        await manager.update(Event, event.id, {
          status: 'trash',
          modifiedAt: nowEpoch(),
          revision: () => 'revision + 1',
        });
        await adjustTermCounts(manager, [...counted.keys()], [], counted);
        await this.removeFromSeries(manager, event);
        recordChanges(manager, [
          { kind: 'event', id: event.id, action: 'deleted', permanent: false },
        ]);
        return this.written(manager, event.id, ctx);
      });
      return withTag(answer, etag);
    }
    const [record] = await this.records.map([event], ctx, () => ({}));
    await writeTransaction(this.dataSource, async (manager) => {
      await lockEventRow(manager, event.id);
      await assertPrecondition(ctx.precondition, () => this.readRecord(manager, event.id, ctx));
      const counted = await countedTermTaxonomiesOf(manager, event.id);
      await this.removeFromSeries(manager, event, true);
      // Its child events lose their `post_parent`.
      const children = await manager.find(Event, {
        where: { parentId: event.id },
        select: { id: true },
      });
      await deleteEvent(manager, event.id);
      await adjustTermCounts(manager, [...counted.keys()], [], counted);
      recordChanges(manager, [
        ...children.map((child) => ({
          kind: 'event' as const,
          id: child.id,
          action: 'updated' as const,
        })),
        { kind: 'event', id: event.id, action: 'deleted', permanent: true },
      ]);
    });
    // Gone for good: no GET of it has an ETag any more.
    return record;
  }

  /** The list filters of `/events`, checked (400 naming the parameter) and resolved to IDs. */
  listFilters(query: ListEventsQueryDto, ctx: RequestContext): Promise<EventListFilters> {
    return resolveListFilters(query, ctx, {
      manager: this.dataSource.manager,
      siteTimezone: this.config.siteTimezone,
      terms: this.terms,
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
    const [loaded, linkRows] = await Promise.all([
      loadEvents(this.dataSource.manager, ids),
      this.records.linkRows(ids),
    ]);
    const events = ids.flatMap((id) => loaded.get(id) ?? []);
    const records = await this.records.map(
      events,
      ctx,
      (event) => ({ blanked: this.isLocked(event, ctx, password) }),
      linkRows,
      linked,
    );
    return events.map((event, i) => ({ event, record: records[i] }));
  }

  /**
   * Deleting an event of a series (docs/api.md §16): the series takes all its
   * occurrences with it; one occurrence becomes an EXDATE of its series (and,
   * trashed, stays as a detached occurrence until restored or deleted).
   */
  private async removeFromSeries(manager: EntityManager, event: Event, force = false) {
    if (event.seriesId === null) return;
    if (event.seriesId !== event.id) {
      return force
        ? this.recurrence.excludeOccurrence(manager, event)
        : this.recurrence.trashOccurrence(manager, event);
    }
    if (force) return this.recurrence.deleteAllOccurrences(manager, event.id);
    return this.recurrence.trashOccurrences(manager, event.id);
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

  /**
   * Venue, organizers, categories and tags, in the body's order, inside the
   * write's transaction; `checked`: the named terms' taxonomies, read already.
   */
  private async resolveLinks(
    manager: EntityManager,
    input: UpdateEventDto,
    ctx: RequestContext,
    checked: ReadonlyMap<number, string>,
  ): Promise<LinkChanges> {
    const venueId = await this.venues.resolveForEvent(manager, input.venue, ctx);
    const organizerIds = await this.organizers.resolveForEvent(manager, input.organizer, ctx);
    const categoryIds = await this.terms.resolveForEvent(
      manager,
      CATEGORIES,
      input.categories,
      ctx,
      checked,
    );
    const tagIds = await this.terms.resolveForEvent(manager, TAGS, input.tags, ctx, checked);
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

  /**
   * The event as a GET by ID without `password` and `context` shows it to the
   * caller, read on `manager` (a write's transaction): what its ETag hashes.
   */
  private async readRecord(
    manager: EntityManager,
    id: number,
    ctx: RequestContext,
    links?: EventLinkRows,
  ): Promise<EventRecord> {
    const rows = await this.records.loadRows(manager, [id], links);
    if (!rows.events.get(id)?.translations.length) throw new ApiError(EVENTS.notFound);
    // Its change messages render the webhook record from these rows while nothing is written since.
    WRITTEN_EVENT_ROWS.keep(manager, rows);
    const [record] = this.records.mapRows(rows, ctx, () => ({
      withJsonLd: true,
      withTranslations: false,
    }));
    return record;
  }

  /**
   * A write's answer and ETag, from one read at the end of its transaction
   * (writeAnswer); `links`: the event's link rows when the write knows them
   * all (it created them).
   */
  private async written(
    manager: EntityManager,
    id: number,
    ctx: RequestContext,
    links?: EventLinkRows,
  ): Promise<{ answer: EventRecord; etag: string }> {
    return writeAnswer(await this.readRecord(manager, id, ctx, links));
  }
}

/** The link rows a new event's write made (writeEventLinks): its terms once each, its organizers in order. */
function linkRowsOfNewEvent(eventId: number, links: LinkChanges): EventLinkRows {
  const termIds = new Set([...(links.categoryIds ?? []), ...(links.tagIds ?? [])]);
  return {
    termLinks: [...termIds].map((termId) => ({ eventId, termId })),
    organizerLinks: (links.organizerIds ?? []).map((organizerId) => ({ eventId, organizerId })),
  };
}

/** By ID with `include`; by relevance when asked with search words; else by start (docs/api.md §5.1). */
function listOrder(query: ListEventsQueryDto, filters: EventListFilters): EventOrder {
  if (filters.include) return 'id';
  return query.orderby === 'relevance' && filters.search ? 'relevance' : 'start';
}
