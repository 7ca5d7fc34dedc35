import { hash as digest } from 'node:crypto';
import { EntityManager, In, MoreThan, Not, ObjectLiteral } from 'typeorm';
import { Event } from '../events/entities/event.entity';
import type { ImportItem } from './import-item';
import type { ImportTarget } from './import-report';

/*
 * The reads of the import writer, one query per chunk of items (no N+1):
 * the events the source's keys name, the occurrences its detached instances
 * name, the venues and organizers its keys name, and its events page by page.
 */

/** What the writer reads of an event it may write: enough to compare, lock and trash it. */
export type ImportedEvent = Pick<
  Event,
  'id' | 'status' | 'seriesId' | 'occurrenceDate' | 'importHash' | 'externalId'
>;

const IMPORTED_COLUMNS = {
  id: true,
  status: true,
  seriesId: true,
  occurrenceDate: true,
  importHash: true,
  externalId: true,
} as const;

/**
 * The hash stored with an event the import wrote: its item's hash and the
 * target's settings that shape the event (status, categories, language), so a
 * changed target rewrites its events once. 43 characters (base64url SHA-256).
 */
export function importHashOf(item: ImportItem, target: ImportTarget): string {
  const settings = [target.status, target.language, [...target.categoryIds].sort((a, b) => a - b)];
  return digest('sha256', `${item.hash}\n${JSON.stringify(settings)}`, 'base64url');
}

/** The source's events holding these UIDs as keys, by UID (the external key's unique index). */
export async function eventsByKey(
  manager: EntityManager,
  source: string,
  uids: readonly string[],
): Promise<Map<string, ImportedEvent>> {
  if (uids.length === 0) return new Map();
  const rows = await manager.find(Event, {
    where: { externalSource: source, externalId: In([...new Set(uids)]) },
    select: IMPORTED_COLUMNS,
  });
  return new Map(rows.map((row) => [row.externalId as string, row]));
}

/** The key of an occurrence: its series and its date. */
export const occurrenceKey = (seriesId: number, date: string) => `${seriesId} ${date}`;

/** Occurrences of these series on these dates (the unique (series_id, occurrence_date) index). */
export async function occurrencesOn(
  manager: EntityManager,
  seriesIds: readonly number[],
  dates: readonly string[],
): Promise<Map<string, ImportedEvent>> {
  if (seriesIds.length === 0) return new Map();
  const rows = await manager.find(Event, {
    where: { seriesId: In([...new Set(seriesIds)]), occurrenceDate: In([...new Set(dates)]) },
    select: IMPORTED_COLUMNS,
  });
  return new Map(
    rows
      .filter((row) => row.id !== row.seriesId)
      .map((row) => [occurrenceKey(row.seriesId as number, row.occurrenceDate as string), row]),
  );
}

/** A venue or organizer a key names: its ID and whether it is in the trash. */
export interface LinkedRecord {
  id: number;
  trashed: boolean;
}

/** The venues or organizers of the source holding these keys, by key. */
export async function linkedByKey(
  manager: EntityManager,
  entity: new () => ObjectLiteral,
  source: string,
  keys: readonly string[],
): Promise<Map<string, LinkedRecord>> {
  if (keys.length === 0) return new Map();
  const rows: Array<{ id: number | string; ext: string; status: string }> = await manager
    .createQueryBuilder(entity, 'p')
    .select('p.id', 'id')
    .addSelect('p.externalId', 'ext')
    .addSelect('p.status', 'status')
    .where('p.externalSource = :source AND p.externalId IN (:...keys)', {
      source,
      keys: [...new Set(keys)],
    })
    .getRawMany();
  return new Map(
    rows.map((row) => [row.ext, { id: Number(row.id), trashed: row.status === 'trash' }]),
  );
}

/**
 * One page of the source's events not in the trash, in key order after
 * `afterKey` (undefined: from the first): a range of the unique key index
 * (source, key), read in its order, so no page sorts the source's events.
 */
export function liveEventsOfSource(
  manager: EntityManager,
  source: string,
  afterKey: string | undefined,
  limit: number,
): Promise<ImportedEvent[]> {
  return manager.find(Event, {
    where: {
      externalSource: source,
      status: Not('trash'),
      ...(afterKey === undefined ? {} : { externalId: MoreThan(afterKey) }),
    },
    select: IMPORTED_COLUMNS,
    order: { externalId: 'ASC' },
    take: limit,
  });
}
