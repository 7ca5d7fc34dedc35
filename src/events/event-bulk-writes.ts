import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../common/http/request-context';
import { insertRow, insertRows, insertRowsReturningIds } from '../database/entity-inserts';
import { OrganizersService } from '../organizers/organizers.service';
import { assertExternalKeysFree } from '../posts/external-keys';
import { applyPostTexts, slugBaseOf } from '../posts/post-store';
import { freeSlugs } from '../posts/slugs';
import {
  adjustTermCounts,
  countedTermsOfNewEvent,
  lockTermsForCount,
  lockTermsReadingTaxonomies,
} from '../terms/term-counts';
import { VenuesService } from '../venues/venues.service';
import { InsertReturning } from '../writes/insert-returning';
import type { WriteUnit } from '../writes/write-unit';
import type { CreateEventDto } from './dto/create-event.dto';
import { EventOrganizer } from './entities/event-organizer.entity';
import { EventTerm } from './entities/event-term.entity';
import { EventTranslation } from './entities/event-translation.entity';
import { Event } from './entities/event.entity';
import { EVENTS, type LinkChanges } from './event-store';
import { namedTermIds, taxonomiesOf, termIdsOf } from './event-term-writes';
import { EventWrites } from './event-writes.service';

/** Events per multi-row INSERT: a statement's parameters stay far below every engine's limit. */
const ROWS_PER_INSERT = 100;

/** One event of a bulk create, checked and resolved, before its rows are written. */
interface PlannedEvent {
  row: Partial<Event>;
  translation: EventTranslation;
  slugBase: string;
  links: LinkChanges;
}

/**
 * Creates many events in a caller's unit of work with the rows, change
 * records and validation of as many EventWrites.createIn calls, in a few
 * set-based statements (docs/decisions.md, bulk creates): the references of
 * all events checked in one query per kind, the events, their texts and
 * links in multi-row INSERTs, their slugs made free in one probe, the term
 * counts moved once. Series and events with a `post_parent` go through
 * createIn one by one, in their place, so IDs ascend in the inputs' order.
 * An invalid input throws its ApiError and the caller's unit rolls back.
 */
@Injectable()
export class EventBulkWrites {
  constructor(
    private readonly insertReturning: InsertReturning,
    private readonly events: EventWrites,
    private readonly venues: VenuesService,
    private readonly organizers: OrganizersService,
  ) {}

  /**
   * Creates `inputs` in order and returns their IDs in order; `extras[i]`:
   * columns no body sets for input i (an import's hash). The caller checked
   * assertCanCreate.
   */
  async createMany(
    unit: WriteUnit,
    inputs: readonly CreateEventDto[],
    ctx: RequestContext,
    extras: ReadonlyArray<Partial<Event>> = [],
  ): Promise<number[]> {
    const ids: number[] = [];
    let run: number[] = [];
    const flush = async () => {
      for (let i = 0; i < run.length; i += ROWS_PER_INSERT) {
        const part = run.slice(i, i + ROWS_PER_INSERT);
        ids.push(
          ...(await this.createRun(
            unit,
            part.map((at) => inputs[at]),
            ctx,
            part.map((at) => extras[at] ?? {}),
          )),
        );
      }
      run = [];
    };
    for (const [at, input] of inputs.entries()) {
      if (isPlainCreate(input)) {
        run.push(at);
        continue;
      }
      await flush();
      ids.push((await this.events.createIn(unit, input, ctx, { extra: extras[at] })).id);
    }
    await flush();
    return ids;
  }

  /** Events without a rule or parent: the set-based path. */
  private async createRun(
    unit: WriteUnit,
    inputs: readonly CreateEventDto[],
    ctx: RequestContext,
    extras: ReadonlyArray<Partial<Event>>,
  ): Promise<number[]> {
    const { manager } = unit;
    const planned = await this.plan(unit, inputs, ctx, extras);
    await assertExternalKeysFree(
      manager,
      Event,
      planned.map((event) => event.row),
    );
    const ids = await this.insertEvents(unit, planned);
    const slugs = await freeSlugs(
      manager,
      EventTranslation,
      'eventId',
      { language: ctx.language },
      planned.map((event) => event.slugBase),
    );
    const texts = planned.map((event, i) =>
      Object.assign(event.translation, { eventId: ids[i], slug: slugs[i] }),
    );
    await insertInPieces(unit, EventTranslation, texts);
    await insertInPieces(
      unit,
      EventOrganizer,
      planned.flatMap((event, i) =>
        (event.links.organizerIds ?? []).map((organizerId, position) => ({
          eventId: ids[i],
          organizerId,
          position,
        })),
      ),
    );
    await insertInPieces(
      unit,
      EventTerm,
      planned.flatMap((event, i) =>
        // As writeEventLinks for a new event: each taxonomy's terms once, categories first.
        [...new Set(event.links.categoryIds ?? []), ...new Set(event.links.tagIds ?? [])].map(
          (termId) => ({ eventId: ids[i], termId }),
        ),
      ),
    );
    await adjustTermCounts(
      unit,
      [],
      planned.flatMap((event) => countedTermsOfNewEvent(event.row.status, termIdsOf(event.links))),
      new Map(planned.flatMap((event) => [...taxonomiesOf(event.links)])),
    );
    unit.record(ids.map((id) => ({ kind: 'event' as const, id, action: 'created' as const })));
    return ids;
  }

  /**
   * Each input's columns, texts and links as createIn makes them, with the
   * terms they name locked and checked in one read and the venues and
   * organizers they name by ID checked in one query per kind; inline ones
   * are found or made as createIn does, in the inputs' order.
   */
  private async plan(
    unit: WriteUnit,
    inputs: readonly CreateEventDto[],
    ctx: RequestContext,
    extras: ReadonlyArray<Partial<Event>>,
  ): Promise<PlannedEvent[]> {
    const { manager } = unit;
    const checked = await lockTermsReadingTaxonomies(manager, inputs.flatMap(namedTermIds));
    const deferred = { venueIds: [] as number[], organizerIds: [] as number[] };
    const planned: PlannedEvent[] = [];
    for (const [i, input] of inputs.entries()) {
      const columns = this.events.newColumns(input, ctx);
      const links = await this.events.resolveLinks(unit, input, ctx, checked, deferred);
      const owner = { id: 0, translations: [] as EventTranslation[] };
      const translation = applyPostTexts(manager, EVENTS, owner, input, ctx.language);
      // A create always sends its title (400 otherwise), so a translation is always made.
      if (!translation) throw new Error('an event create without texts');
      planned.push({
        row: { ...columns, venueId: links.venueId ?? null, parentId: null, ...extras[i] },
        translation,
        slugBase: slugBaseOf(EVENTS, translation, input),
        links,
      });
    }
    await this.venues.assertUsable(manager, [...new Set(deferred.venueIds)]);
    await this.organizers.assertUsable(manager, [...new Set(deferred.organizerIds)]);
    await lockTermsForCount(
      manager,
      planned.flatMap((event) => termIdsOf(event.links)).filter((id) => !checked.has(id)),
    );
    return planned;
  }

  /**
   * The event rows in order, one multi-row INSERT per run of rows setting the
   * same columns (those left out take their defaults, as insertRow's do).
   * Without RETURNING (MySQL 8, or DATABASE_PORTABLE_SQL: TiDB, Vitess) one INSERT per row.
   */
  private async insertEvents(unit: WriteUnit, planned: readonly PlannedEvent[]): Promise<number[]> {
    const { manager } = unit;
    const ids: number[] = [];
    if (!(await this.insertReturning.available(manager))) {
      for (const { row } of planned) ids.push(await insertRow(manager, Event, row));
      return ids;
    }
    const shapes = planned.map(({ row }) => definedKeys(row));
    for (let start = 0; start < planned.length;) {
      let end = start + 1;
      while (end < planned.length && shapes[end].join() === shapes[start].join()) end++;
      ids.push(
        ...(await insertRowsReturningIds(
          manager,
          Event,
          shapes[start],
          planned.slice(start, end).map(({ row }) => row),
        )),
      );
      start = end;
    }
    return ids;
  }
}

/** A create the set-based path writes: no rule (a series materializes occurrences) and no parent. */
function isPlainCreate(input: CreateEventDto): boolean {
  return !input.recurrence?.length && input.post_parent === undefined;
}

/** The properties a row sets, in a stable order. */
function definedKeys<E extends object>(row: Partial<E>): Array<keyof E & string> {
  return (Object.keys(row) as Array<keyof E & string>)
    .filter((key) => row[key] !== undefined)
    .sort();
}

/**
 * Rows of one table in multi-row INSERTs of ROWS_PER_INSERT, each setting the
 * columns any of its rows sets (NULL where a row leaves one out): for link and
 * text rows, whose rows all set the same columns.
 */
async function insertInPieces<E extends object>(
  unit: WriteUnit,
  target: new () => E,
  rows: ReadonlyArray<Partial<E>>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.slice(i, i + ROWS_PER_INSERT);
    const keys = new Set(part.flatMap((row) => definedKeys(row)));
    await insertRows(unit.manager, target, [...keys], part);
  }
}
