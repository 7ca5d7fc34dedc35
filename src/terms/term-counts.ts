import { EntityManager, In } from 'typeorm';
import { termKind } from '../writes/change-kinds';
import type { WriteUnit } from '../writes/write-unit';
import { termIdsOfEventsWithStatus } from '../database/event-links';
import { Term } from './entities/term.entity';

/** The status whose events a term's `published_count` counts. */
const COUNTED_STATUS = 'publish';

/** Recomputes every term's `published_count` (migration, seed, tests that write rows directly). */
export const RECOUNT_TERMS_SQL = `UPDATE terms SET published_count = (
  SELECT COUNT(*) FROM event_terms et INNER JOIN events e ON e.id = et.event_id
  WHERE et.term_id = terms.id AND e.status = 'publish')`;

export async function recountTerms(manager: EntityManager): Promise<void> {
  await manager.query(RECOUNT_TERMS_SQL);
}

/**
 * What countedTermsOfEvents reads back for an event just created with these linked
 * terms and this status, known without a read.
 */
export function countedTermsOfNewEvent(status: unknown, termIds: number[]): number[] {
  return status === COUNTED_STATUS ? [...new Set(termIds)] : [];
}

/** The terms events add to the counts: one entry per published event and term. */
export async function countedTermsOfEvents(
  manager: EntityManager,
  eventIds: number[],
): Promise<number[]> {
  const terms: number[] = [];
  // 500 IDs per query keeps every engine's parameter limit far away.
  for (let i = 0; i < eventIds.length; i += 500) {
    terms.push(
      ...(await termIdsOfEventsWithStatus(manager, eventIds.slice(i, i + 500), COUNTED_STATUS)),
    );
  }
  return terms;
}

/**
 * The terms an event adds to the counts (its terms while it is published,
 * none otherwise), read after the write locked the event row (lockEventRow),
 * so two writes of one event cannot both count from the same state; with each
 * term's taxonomy (what adjustTermCounts would
 * otherwise read): one statement.
 */
export async function countedTermTaxonomiesOf(
  manager: EntityManager,
  eventId: number,
): Promise<Map<number, string>> {
  // Plain SQL, as in lockTermsReadingTaxonomies: every event write sends it.
  const rows: Array<{ termId: number | string; taxonomy: string }> = await manager.query(
    'SELECT et.term_id AS termId, t.taxonomy AS taxonomy FROM event_terms et ' +
      'INNER JOIN events e ON e.id = et.event_id INNER JOIN terms t ON t.id = et.term_id ' +
      'WHERE et.event_id = ? AND e.status = ?',
    [eventId, COUNTED_STATUS],
  );
  return new Map(rows.map((row) => [Number(row.termId), row.taxonomy]));
}

/** A term as the write's locking read found it (lockTermsReadingCounts). */
export interface LockedTerm {
  taxonomy: string;
  publishedCount: number;
}

/**
 * lockTermsForCount that also answers which of the terms exist, their
 * taxonomies and counts (term ID → LockedTerm), so the write checks the IDs
 * it was sent against the same locking read instead of a count of its own,
 * and knows each count its own change moves from. On SQLite a plain read
 * (one writer at a time).
 */
export async function lockTermsReadingCounts(
  manager: EntityManager,
  termIds: number[],
): Promise<Map<number, LockedTerm>> {
  const ids = [...new Set(termIds)].sort((a, b) => a - b);
  if (ids.length === 0) return new Map();
  // Plain SQL: the query builder cost more CPU than this statement's round trip.
  const lock = manager.connection.options.type === 'mysql' ? ' FOR UPDATE' : '';
  const rows: Array<{ id: number | string; taxonomy: string; count: number | string }> =
    await manager.query(
      `SELECT id, taxonomy, published_count AS count FROM terms WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id${lock}`,
      ids,
    );
  return new Map(
    rows.map((row) => [
      Number(row.id),
      { taxonomy: row.taxonomy, publishedCount: Number(row.count) },
    ]),
  );
}

/** lockTermsReadingCounts for writes that need only the taxonomies (term ID → taxonomy). */
export async function lockTermsReadingTaxonomies(
  manager: EntityManager,
  termIds: number[],
): Promise<Map<number, string>> {
  return taxonomiesOfLocked(await lockTermsReadingCounts(manager, termIds));
}

/** Term ID → taxonomy of what a locking read found. */
export function taxonomiesOfLocked(locked: ReadonlyMap<number, LockedTerm>): Map<number, string> {
  return new Map([...locked].map(([id, term]) => [id, term.taxonomy]));
}

/**
 * Takes the write locks of the terms whose counts an event write may change,
 * in ID order, before it inserts any link. InnoDB's foreign-key check on a new
 * link share-locks the term; two writers that each hold that share lock and
 * then ask for the count's write lock deadlock (retried, but ten concurrent
 * creates in one category took over a second at p99). SQLite writes one at a time.
 */
export async function lockTermsForCount(manager: EntityManager, termIds: number[]): Promise<void> {
  const ids = [...new Set(termIds)].sort((a, b) => a - b);
  if (manager.connection.options.type !== 'mysql' || ids.length === 0) return;
  await manager
    .createQueryBuilder(Term, 't')
    .select('t.id')
    .where('t.id IN (:...ids)', { ids })
    .orderBy('t.id')
    .setLock('pessimistic_write')
    .getRawMany();
}

/**
 * Applies an event write's effect on term counts (`before` and `after` as
 * countedTermTaxonomiesOf and countedTermsOfEvents give them) and records the terms whose count moved as changed; their
 * taxonomies are read unless `taxonomies` (term ID → taxonomy) names them all.
 */
export async function adjustTermCounts(
  unit: WriteUnit,
  before: number[],
  after: number[],
  taxonomies?: ReadonlyMap<number, string>,
): Promise<void> {
  const { manager } = unit;
  const delta = new Map<number, number>();
  for (const id of before) delta.set(id, (delta.get(id) ?? 0) - 1);
  for (const id of after) delta.set(id, (delta.get(id) ?? 0) + 1);
  const byChange = new Map<number, number[]>();
  for (const [id, change] of delta)
    if (change !== 0) byChange.set(change, [...(byChange.get(change) ?? []), id]);
  const moved = [...byChange.values()].flat().sort((a, b) => a - b);
  if (moved.length > 0) {
    const terms = moved.every((id) => taxonomies?.has(id))
      ? moved.map((id) => ({ id, taxonomy: taxonomies?.get(id) as string }))
      : await manager.find(Term, {
          where: { id: In(moved) },
          select: { id: true, taxonomy: true },
          order: { id: 'ASC' },
        });
    unit.record(
      terms.map((term) => ({ kind: termKind(term.taxonomy), id: term.id, action: 'updated' })),
    );
  }
  for (const [change, ids] of byChange) {
    await manager.query(
      `UPDATE terms SET published_count = published_count + ? WHERE id IN (${ids.map(() => '?').join(', ')})`,
      [change, ...ids],
    );
  }
}
