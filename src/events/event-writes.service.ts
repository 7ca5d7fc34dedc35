import { preReadManager } from '../common/http/write-request';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AccessPolicy } from '../auth/policy';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import type { Tagged } from '../common/http/tagged-record';
import { writeAnswer } from '../common/http/write-answer';
import { assertPrecondition } from '../common/http/write-precondition';
import { nowEpoch } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import { insertRow } from '../database/entity-inserts';
import type { WriteUnit } from '../writes/write-unit';
import { Writes } from '../writes/writes.service';
import { OrganizersService } from '../organizers/organizers.service';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import {
  adjustTermCounts,
  countedTermsOfEvents,
  countedTermsOfNewEvent,
  countedTermTaxonomiesOf,
  lockTermsForCount,
  lockTermsReadingCounts,
  lockTermsReadingTaxonomies,
  taxonomiesOfLocked,
} from '../terms/term-counts';
import { CHECKED_WHEN_LOCKED, TermLinksService } from '../terms/term-links.service';
import { VenuesService } from '../venues/venues.service';
import { assertCanCreate, assertCanEdit } from '../posts/post-access';
import { assertExternalKeyFree } from '../posts/external-keys';
import { findPostOrFail, PostRef, writePostTexts } from '../posts/post-store';
import { postColumns } from '../posts/post-write';
import { CreateEventDto } from './dto/create-event.dto';
import { UpdateEventDto } from './dto/update-event.dto';
import { Event } from './entities/event.entity';
import { EventTranslation } from './entities/event-translation.entity';
import {
  EventLinkRows,
  EventRecordsService,
  EventRows,
  WRITTEN_EVENT_ROWS,
} from './event-records.service';
import { passwordKey } from './event-password';
import { deleteEvent, EVENTS, LinkChanges, lockEventRow, writeEventLinks } from './event-store';
import {
  checkLinkedTerms,
  countedFromLock,
  namedTermIds,
  termCountsMayMove,
  termIdsOf,
} from './event-term-writes';
import { resolveParent } from './event-parent';
import { eventColumns } from './event-write';
import type { EventRecord } from './event.mapper';
import { RecurrenceService } from './recurrence/recurrence.service';

/**
 * Event writes (docs/api.md §2, §3, §7, §16): each flow looks up and
 * authorises, then runs as one WriteUnit (Writes.run) that writes, keeps the
 * series in step and answers the record with its ETag.
 */
@Injectable()
export class EventWrites {
  private readonly writeSettings: { siteZone: string; passwordKey: Buffer };

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly terms: TermLinksService,
    private readonly venues: VenuesService,
    private readonly organizers: OrganizersService,
    private readonly records: EventRecordsService,
    private readonly recurrence: RecurrenceService,
    private readonly writes: Writes,
  ) {
    this.writeSettings = {
      siteZone: config.siteTimezone,
      passwordKey: passwordKey(config.auth.jwtSecret),
    };
  }

  /** Create: the event, its texts, links and any inline venue, organizers or terms in one transaction. */
  async create(input: CreateEventDto, ctx: RequestContext): Promise<Tagged<EventRecord>> {
    assertCanCreate(ctx.user);
    const rows = await this.writes.run(
      ctx.write,
      async (unit) => (await this.createIn(unit, input, ctx, { answer: true })).rows as EventRows,
      // The webhook endpoints are read first, not after the terms are locked.
      { readAhead: true },
    );
    return this.answerOf(rows, ctx);
  }

  /**
   * The create's writes inside a caller's unit of work (the import writer
   * runs many in one). The caller checked assertCanCreate. `extra`: columns
   * no body sets (the import's hash); `answer`: also read the rows the
   * answer is made of (`rows`, kept in the unit for its change messages).
   *
   * Its terms are write-locked (lockTermsReadingCounts) as late as they can be:
   * every other write naming them waits from there to COMMIT. So what needs
   * no term lock runs before it: the event, its texts, its organizer links
   * and (`answer`) the answer's rows, whose term counts are then taken from
   * the locking read plus this create's own change, not read again.
   */
  async createIn(
    unit: WriteUnit,
    input: CreateEventDto,
    ctx: RequestContext,
    options: { extra?: Partial<Event>; answer?: boolean } = {},
  ): Promise<{ id: number; links: LinkChanges; rows?: EventRows }> {
    const columns = this.newColumns(input, ctx);
    const recurrence = this.recurrence.columnOf(input.recurrence, columns.timezone as string);
    const { manager } = unit;
    const links = await this.resolveLinks(unit, input, ctx, CHECKED_WHEN_LOCKED);
    const parentId = await resolveParent(manager, input.post_parent, undefined);
    await assertExternalKeyFree(manager, Event, columns, undefined);
    const event = {
      id: await insertRow(manager, Event, {
        ...columns,
        venueId: links.venueId ?? null,
        parentId,
        ...options.extra,
      }),
      translations: [] as EventTranslation[],
    };
    await writePostTexts(manager, EVENTS, event, input, ctx.language);
    await writeEventLinks(manager, event.id, organizerLinksOf(links), true);
    // A series' first occurrences change its row below: its answer is read after them.
    const early =
      options.answer && !recurrence
        ? await this.records.loadRows(manager, [event.id], linkRowsOfNewEvent(event.id, links))
        : undefined;
    // The IDs it named are checked in the same read that locks them.
    const locked = await lockTermsReadingCounts(manager, termIdsOf(links));
    const taxonomies = taxonomiesOfLocked(locked);
    checkLinkedTerms(links, taxonomies);
    await writeEventLinks(manager, event.id, termLinksOf(links), true);
    const counted = countedTermsOfNewEvent(columns.status, termIdsOf(links));
    await adjustTermCounts(unit, [], counted, taxonomies);
    if (early) countedFromLock(early.terms, locked, counted);
    if (recurrence) {
      await manager.update(Event, event.id, { recurrence });
      await this.recurrence.afterSeriesWrite(unit, event.id, false);
    }
    unit.record([{ kind: 'event', id: event.id, action: 'created' }]);
    if (!options.answer) return { id: event.id, links };
    if (early) unit.keep(WRITTEN_EVENT_ROWS, early);
    const rows =
      early ?? (await this.readRows(unit, event.id, linkRowsOfNewEvent(event.id, links)));
    return { id: event.id, links, rows };
  }

  /**
   * Partial update (POST, PUT and PATCH alike), all in one transaction: a
   * failing part leaves the event as it was. Fields left out keep their
   * values; sending `status` restores a trashed event.
   */
  async update(
    ref: PostRef,
    input: UpdateEventDto,
    ctx: RequestContext,
  ): Promise<Tagged<EventRecord>> {
    const current = await findPostOrFail(
      preReadManager(ctx.write, this.dataSource.manager),
      EVENTS,
      ref,
      ctx.language,
    );
    assertCanEdit(ctx.user, current);
    const post = postColumns(input, ctx, this.config.siteTimezone, false);
    const rows = await this.writes.run(ctx.write, async (unit) => {
      await lockEventRow(unit.manager, current.id);
      await assertPrecondition(ctx.precondition, () => this.readRecord(unit, current.id, ctx));
      await this.updateLocked(unit, current.id, input, ctx, post);
      return this.readRows(unit, current.id);
    });
    return this.answerOf(rows, ctx);
  }

  /**
   * The update's writes inside a caller's unit of work, the event's row
   * locked already (lockEventRow); `post`: postColumns of the input;
   * `extra`: columns no body sets (the import's hash). No answer is read.
   * The caller checked assertCanEdit.
   */
  async updateLocked(
    unit: WriteUnit,
    id: number,
    input: UpdateEventDto,
    ctx: RequestContext,
    post: Partial<Event>,
    extra: Partial<Event> = {},
  ): Promise<void> {
    const { manager } = unit;
    // Re-read inside the transaction: a retry must not reuse texts changed by the failed attempt.
    const event = await findPostOrFail(manager, EVENTS, { id }, ctx.language);
    // The event row is locked (lockEventRow): its counted terms are read without locking it again.
    const counted = await countedTermTaxonomiesOf(manager, event.id);
    const columns = { ...eventColumns(input, event, this.writeSettings), ...post, ...extra };
    const countsMayMove = termCountsMayMove(input, columns.status, event);
    // Its counted and named terms, write-locked in ID order and checked in one read (see create).
    const checked = countsMayMove
      ? await lockTermsReadingTaxonomies(manager, [...counted.keys(), ...namedTermIds(input)])
      : new Map<number, string>();
    const links = await this.resolveLinks(unit, input, ctx, checked);
    await lockTermsForCount(
      manager,
      termIdsOf(links).filter((termId) => !checked.has(termId)),
    );
    const parentId = await resolveParent(manager, input.post_parent, event.id);
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
        unit,
        [...counted.keys()],
        await countedTermsOfEvents(manager, [event.id]),
        new Map([...checked, ...counted]),
      );
    }
    if (isOccurrence) await this.recurrence.occurrenceChanged(manager, event.seriesId as number);
    const restored = event.status === 'trash' && !!columns.status && columns.status !== 'trash';
    if (isOccurrence && restored) await this.recurrence.restoreOccurrence(unit, event);
    if (!isOccurrence && (event.recurrence !== null || recurrence)) {
      await this.recurrence.afterSeriesWrite(unit, event.id, event.recurrence !== null);
      if (restored) await this.recurrence.restoreOccurrences(unit, event.id);
    }
    unit.record([{ kind: 'event', id: event.id, action: 'updated' }]);
  }

  /**
   * DELETE (docs/api.md §7): trash (410 when already trashed) or, with `force`
   * (editors+), delete for good and answer the record as it was.
   */
  async remove(
    ref: PostRef,
    force: boolean | undefined,
    ctx: RequestContext,
  ): Promise<Tagged<EventRecord>> {
    const event = await findPostOrFail(
      preReadManager(ctx.write, this.dataSource.manager),
      EVENTS,
      ref,
      ctx.language,
    );
    assertCanEdit(ctx.user, event);
    if (force && !AccessPolicy.canForceDelete(ctx.user)) throw ApiError.forbidden();
    if (!force && event.status === 'trash') throw new ApiError('event-is-in-trash');
    if (!force) {
      const rows = await this.writes.run(ctx.write, async (unit) => {
        const { manager } = unit;
        await lockEventRow(manager, event.id);
        await assertPrecondition(ctx.precondition, () => this.readRecord(unit, event.id, ctx));
        await this.trashLocked(unit, event);
        return this.readRows(unit, event.id);
      });
      return this.answerOf(rows, ctx);
    }
    const [record] = await this.records.map([event], ctx, () => ({}));
    await this.writes.run(ctx.write, async (unit) => {
      const { manager } = unit;
      await lockEventRow(manager, event.id);
      await assertPrecondition(ctx.precondition, () => this.readRecord(unit, event.id, ctx));
      const counted = await countedTermTaxonomiesOf(manager, event.id);
      await this.removeFromSeries(unit, event, true);
      // Its child events lose their `post_parent`.
      const children = await manager.find(Event, {
        where: { parentId: event.id },
        select: { id: true },
      });
      await deleteEvent(manager, event.id);
      await adjustTermCounts(unit, [...counted.keys()], [], counted);
      unit.record([
        ...children.map((child) => ({
          kind: 'event' as const,
          id: child.id,
          action: 'updated' as const,
        })),
        { kind: 'event', id: event.id, action: 'deleted', permanent: true },
      ]);
    });
    // Gone for good: no GET of it has an ETag any more.
    return { record };
  }

  /**
   * Trash inside a caller's unit of work, the event's row locked already
   * (lockEventRow); `event` as read before (its series columns). An
   * occurrence becomes an EXDATE of its series, a series takes its
   * occurrences along (docs/api.md §16). The caller checked it is not trashed.
   */
  async trashLocked(unit: WriteUnit, event: Event): Promise<void> {
    const { manager } = unit;
    const counted = await countedTermTaxonomiesOf(manager, event.id);
    await manager.update(Event, event.id, {
      status: 'trash',
      modifiedAt: nowEpoch(),
      revision: () => 'revision + 1',
    });
    await adjustTermCounts(unit, [...counted.keys()], [], counted);
    await this.removeFromSeries(unit, event);
    unit.record([{ kind: 'event', id: event.id, action: 'deleted', permanent: false }]);
  }

  /**
   * Deleting an event of a series (docs/api.md §16): the series takes all its
   * occurrences with it; one occurrence becomes an EXDATE of its series (and,
   * trashed, stays as a detached occurrence until restored or deleted).
   */
  private async removeFromSeries(unit: WriteUnit, event: Event, force = false) {
    if (event.seriesId === null) return;
    if (event.seriesId !== event.id) {
      return force
        ? this.recurrence.excludeOccurrence(unit, event)
        : this.recurrence.trashOccurrence(unit, event);
    }
    if (force) return this.recurrence.deleteAllOccurrences(unit, event.id);
    return this.recurrence.trashOccurrences(unit, event.id);
  }

  /** The columns of a new event's row, from its body. */
  newColumns(input: CreateEventDto, ctx: RequestContext): Partial<Event> {
    return {
      ...eventColumns(input, undefined, this.writeSettings),
      ...postColumns(input, ctx, this.config.siteTimezone, true),
    };
  }

  /**
   * The venue, organizers and terms a body names, resolved (new ones made) in
   * the body's order inside the write's transaction. `checked`: the named
   * terms' taxonomies, read already; `deferred`: where the IDs of existing
   * venues and organizers go to be checked later in one read (many creates at
   * once); checked here without it.
   */
  async resolveLinks(
    unit: WriteUnit,
    input: UpdateEventDto,
    ctx: RequestContext,
    checked: ReadonlyMap<number, string> | typeof CHECKED_WHEN_LOCKED,
    deferred?: { venueIds: number[]; organizerIds: number[] },
  ): Promise<LinkChanges> {
    const venueId = await this.venues.resolveForEvent(unit, input.venue, ctx, deferred?.venueIds);
    const organizerIds = await this.organizers.resolveForEvent(
      unit,
      input.organizer,
      ctx,
      deferred?.organizerIds,
    );
    const categoryIds = await this.terms.resolveForEvent(
      unit,
      CATEGORIES,
      input.categories,
      ctx,
      checked,
    );
    const tagIds = await this.terms.resolveForEvent(unit, TAGS, input.tags, ctx, checked);
    return { venueId, organizerIds, categoryIds, tagIds };
  }

  /**
   * The event as a GET by ID without `password` and `context` shows it to the
   * caller, read in the write's transaction: what its ETag hashes.
   */
  private async readRecord(unit: WriteUnit, id: number, ctx: RequestContext): Promise<EventRecord> {
    return this.recordOf(await this.readRows(unit, id), ctx);
  }

  /**
   * The event's rows, read in the write's transaction (404 when it is gone);
   * `links`: its link rows when the write knows them all (it created them).
   */
  private async readRows(unit: WriteUnit, id: number, links?: EventLinkRows): Promise<EventRows> {
    const rows = await this.records.loadRows(unit.manager, [id], links);
    if (!rows.events.get(id)?.translations.length) throw new ApiError(EVENTS.notFound);
    // Its change messages render the webhook record from these rows unless a change is recorded since.
    unit.keep(WRITTEN_EVENT_ROWS, rows);
    return rows;
  }

  private recordOf(rows: EventRows, ctx: RequestContext): EventRecord {
    const [record] = this.records.mapRows(rows, ctx, () => ({
      withJsonLd: true,
      withTranslations: false,
    }));
    return record;
  }

  /**
   * A write's answer and ETag (writeAnswer) from the rows it read at the end
   * of its transaction: built after COMMIT, so the rows' locks are not held
   * while the record is mapped, serialized and hashed.
   */
  private answerOf(rows: EventRows, ctx: RequestContext): Tagged<EventRecord> {
    const { answer, etag, bytes } = writeAnswer(this.recordOf(rows, ctx));
    return { record: answer, etag, bytes };
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

/** A new event's organizer links alone (writeEventLinks), written before its terms are locked. */
function organizerLinksOf(links: LinkChanges): LinkChanges {
  return { ...links, categoryIds: undefined, tagIds: undefined };
}

/** A new event's term links alone (writeEventLinks), written once its terms are locked. */
function termLinksOf(links: LinkChanges): LinkChanges {
  return { ...links, organizerIds: undefined };
}
