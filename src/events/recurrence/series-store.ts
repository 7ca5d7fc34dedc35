import { DateTime, FixedOffsetZone } from 'luxon';
import { EntityManager, In } from 'typeorm';
import { freeSlug, MAX_SLUG_LENGTH } from '../../posts/slugs';
import { nowEpoch, parseZone } from '../../common/time/dates';
import { insertRows } from '../../database/entity-inserts';
import { adjustTermCounts, countedTermsOfEvents } from '../../terms/term-counts';
import type { WriteUnit } from '../../writes/write-unit';
import { EventOrganizer } from '../entities/event-organizer.entity';
import { EventTerm } from '../entities/event-term.entity';
import { EventTranslation } from '../entities/event-translation.entity';
import { Event } from '../entities/event.entity';
import { horizonDate, occurrenceDates, occurrenceTimes } from './occurrences';
import { parseRecurrence, Recurrence } from './recurrence-lines';

/*
 * Storage of recurring series (docs/api.md §16): every occurrence is an event
 * row of its own, a copy of the series (texts in every language, links,
 * flags, status) on its date. Rows are written in bulk, one statement per
 * table per batch, so a daily series of two years is a handful of statements.
 */

/** Rows per INSERT: 500 events × ~30 columns stays under both engines' parameter limits. */
const BATCH = 500;

/** The occurrence IDs a series write created, rewrote and removed. */
export interface OccurrenceChanges {
  created: number[];
  updated: number[];
  deleted: number[];
}

/** The series' lines, parsed in its zone. */
export function seriesRecurrence(series: Event): Recurrence {
  return parseRecurrence(JSON.parse(series.recurrence ?? '[]') as string[], zoneOf(series));
}

const zoneOf = (event: Pick<Event, 'timezone'>) =>
  parseZone(event.timezone) ?? FixedOffsetZone.utcInstance;

/**
 * Makes the series' occurrences match it up to the horizon: the ones not
 * edited on their own are rewritten from the series, keeping their IDs
 * where their date still fits the rule; dates that no longer fit lose
 * theirs; new dates get new ones. Detached occurrences are left alone.
 * `series` is the row as just written, with its translations.
 */
export async function materializeSeries(
  unit: WriteUnit,
  series: Event,
  now: DateTime,
  horizonMonths: number,
): Promise<OccurrenceChanges> {
  const { manager } = unit;
  const zone = zoneOf(series);
  const through = horizonDate(now, series, zone, horizonMonths);
  const existing: Array<Pick<Event, 'id' | 'occurrenceDate' | 'detached'>> = await manager.find(
    Event,
    {
      where: { seriesId: series.id },
      select: { id: true, occurrenceDate: true, detached: true },
      // Locked on MySQL: an occurrence detached by a concurrent edit is not rewritten over it.
      ...(manager.connection.options.type === 'mysql'
        ? { lock: { mode: 'pessimistic_write' as const } }
        : {}),
    },
  );
  const occurrences = existing.filter((row) => row.id !== series.id);
  const detachedDates = new Set(occurrences.filter((o) => o.detached).map((o) => o.occurrenceDate));
  const rewritten = occurrences.filter((o) => !o.detached);
  const dates = occurrenceDates(seriesRecurrence(series), series, zone, through).filter(
    (date) => !detachedDates.has(date),
  );
  const idByDate = new Map(rewritten.map((o) => [o.occurrenceDate as string, o.id]));
  const wanted = new Set(dates);
  const before = await countedTermsOfEvents(
    manager,
    rewritten.map((o) => o.id),
  );
  await deleteEventRows(
    manager,
    rewritten.map((o) => o.id),
  );
  const ids = await insertOccurrences(manager, series, dates, idByDate);
  await manager.update(Event, series.id, {
    seriesId: series.id,
    occurrenceDate: null,
    materializedUntil: through,
  });
  await adjustTermCounts(unit, before, await countedTermsOfEvents(manager, ids));
  return {
    created: ids.filter((id) => !rewritten.some((o) => o.id === id)),
    updated: rewritten.filter((o) => wanted.has(o.occurrenceDate as string)).map((o) => o.id),
    deleted: rewritten.filter((o) => !wanted.has(o.occurrenceDate as string)).map((o) => o.id),
  };
}

/** The date a series' occurrences should exist up to at `now`. */
export function seriesHorizon(series: Event, now: DateTime, horizonMonths: number): string {
  return horizonDate(now, series, zoneOf(series), horizonMonths);
}

/**
 * Adds the occurrences after `after` up to `through` (the horizon job);
 * nothing else of the series changes.
 */
export async function extendSeries(
  unit: WriteUnit,
  series: Event,
  after: string,
  through: string,
): Promise<number[]> {
  const { manager } = unit;
  const zone = zoneOf(series);
  const dates = occurrenceDates(seriesRecurrence(series), series, zone, through, after);
  const ids = await insertOccurrences(manager, series, dates, new Map());
  await adjustTermCounts(unit, [], await countedTermsOfEvents(manager, ids));
  return ids;
}

/**
 * Removes every occurrence of a series that is not detached, or all of
 * them: for a series whose rule was removed, or that is deleted for good.
 */
export async function deleteOccurrences(
  unit: WriteUnit,
  seriesId: number,
  includeDetached: boolean,
): Promise<number[]> {
  const { manager } = unit;
  const rows = await manager.find(Event, {
    where: includeDetached ? { seriesId } : { seriesId, detached: false },
    select: { id: true },
  });
  const ids = rows.map((row) => row.id).filter((id) => id !== seriesId);
  await adjustTermCounts(unit, await countedTermsOfEvents(manager, ids), []);
  await deleteEventRows(manager, ids);
  return ids;
}

/** Deletes events with their texts and links, a batch per statement. */
async function deleteEventRows(manager: EntityManager, ids: number[]): Promise<void> {
  for (const chunk of chunks(ids, BATCH)) {
    await manager.update(Event, { parentId: In(chunk) }, { parentId: null });
    await manager.delete(EventTerm, { eventId: In(chunk) });
    await manager.delete(EventOrganizer, { eventId: In(chunk) });
    await manager.delete(EventTranslation, { eventId: In(chunk) });
    await manager.delete(Event, { id: In(chunk) });
  }
}

/**
 * Inserts one event per date as a copy of the series, with the IDs of
 * `idByDate` where given (an occurrence rewritten in place) and new ones
 * otherwise; then their texts and links. Returns the IDs in date order.
 */
async function insertOccurrences(
  manager: EntityManager,
  series: Event,
  dates: string[],
  idByDate: Map<string, number>,
): Promise<number[]> {
  if (dates.length === 0) return [];
  const zone = zoneOf(series);
  const modifiedAt = nowEpoch();
  const rows = dates.map((date) => {
    const times = occurrenceTimes(date, series, zone);
    const row: Partial<Event> = {
      authorId: series.authorId,
      status: series.status,
      publishedAt: series.publishedAt,
      modifiedAt,
      imageId: series.imageId,
      imageUrl: series.imageUrl,
      timezone: series.timezone,
      startLocal: times.startLocal,
      endLocal: times.endLocal,
      startAt: times.startAt,
      endAt: times.endAt,
      allDay: series.allDay,
      cost: series.cost,
      website: series.website,
      showMap: series.showMap,
      showMapLink: series.showMapLink,
      hideFromListings: series.hideFromListings,
      sticky: series.sticky,
      featured: series.featured,
      ticketed: series.ticketed,
      parentId: series.id,
      passwordHash: series.passwordHash,
      venueId: series.venueId,
      recurrence: null,
      seriesId: series.id,
      occurrenceDate: date,
      detached: false,
      materializedUntil: null,
    };
    const id = idByDate.get(date);
    return id === undefined ? row : { id, ...row };
  });
  // Two statements per batch at most: rows that keep their ID and rows that get a new one.
  const properties = Object.keys(rows[0]).filter((key) => key !== 'id') as Array<
    keyof Event & string
  >;
  for (const keep of [true, false]) {
    const part = rows.filter((row) => (row.id !== undefined) === keep);
    for (const chunk of chunks(part, BATCH)) {
      await insertRows(manager, Event, keep ? ['id', ...properties] : properties, chunk);
    }
  }
  const idOf = new Map<string, number>();
  for (const chunk of chunks(dates, BATCH)) {
    const inserted = await manager.find(Event, {
      where: { seriesId: series.id, occurrenceDate: In(chunk) },
      select: { id: true, occurrenceDate: true },
    });
    for (const row of inserted) idOf.set(row.occurrenceDate as string, row.id);
  }
  const ids = dates.map((date) => idOf.get(date) as number);
  await insertTexts(manager, series, dates, ids);
  await insertLinks(manager, series.id, ids);
  return ids;
}

/** The series' texts in every language it has, with a slug per occurrence: `<series slug>-<date>`. */
async function insertTexts(
  manager: EntityManager,
  series: Event,
  dates: string[],
  ids: number[],
): Promise<void> {
  const rows: Array<Partial<EventTranslation>> = [];
  for (const translation of series.translations) {
    const base = translation.slug.slice(0, MAX_SLUG_LENGTH - 19).replace(/-+$/, '');
    const wanted = dates.map((date) => `${base}-${date}`);
    const taken = new Set<string>();
    for (const chunk of chunks(wanted, BATCH)) {
      const rowsTaken = await manager.find(EventTranslation, {
        where: { language: translation.language, slug: In(chunk) },
        select: { id: true, slug: true },
      });
      for (const row of rowsTaken) taken.add(row.slug);
    }
    for (const [index, slug] of wanted.entries()) {
      // Another event already has the slug: the next free `-N` form (rare, so one at a time is fine).
      const free = taken.has(slug)
        ? await freeSlug(
            manager,
            EventTranslation,
            'eventId',
            { language: translation.language },
            slug,
            undefined,
          )
        : slug;
      rows.push({
        eventId: ids[index],
        language: translation.language,
        title: translation.title,
        description: translation.description,
        excerpt: translation.excerpt,
        slug: free,
      });
    }
  }
  for (const chunk of chunks(rows, BATCH)) {
    await insertRows(
      manager,
      EventTranslation,
      ['eventId', 'language', 'title', 'description', 'excerpt', 'slug'],
      chunk,
    );
  }
}

/** The series' terms and organizers (in their order) on every occurrence. */
async function insertLinks(manager: EntityManager, seriesId: number, ids: number[]): Promise<void> {
  const [terms, organizers] = await Promise.all([
    manager.find(EventTerm, { where: { eventId: seriesId } }),
    manager.find(EventOrganizer, { where: { eventId: seriesId }, order: { position: 'ASC' } }),
  ]);
  const termRows = ids.flatMap((eventId) => terms.map((t) => ({ eventId, termId: t.termId })));
  const organizerRows = ids.flatMap((eventId) =>
    organizers.map((o) => ({ eventId, organizerId: o.organizerId, position: o.position })),
  );
  for (const chunk of chunks(termRows, BATCH * 4))
    await insertRows(manager, EventTerm, ['eventId', 'termId'], chunk);
  for (const chunk of chunks(organizerRows, BATCH * 3))
    await insertRows(manager, EventOrganizer, ['eventId', 'organizerId', 'position'], chunk);
}

function chunks<T>(items: T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}
