import { EntityManager, In } from 'typeorm';
import { termKind } from '../changes/change-kinds';
import { recordChanges } from '../changes/change-tracker';
import { lockEventRow, termIdsOfEventsWithStatus } from '../database/event-links';
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
 * The terms an event adds to the counts: its terms while it is published,
 * none otherwise. Inside a write transaction on MySQL the event row is
 * locked first, so two writes of one event cannot both count from the same state.
 */
export async function countedTermsOf(manager: EntityManager, eventId: number): Promise<number[]> {
  if (manager.queryRunner?.isTransactionActive) await lockEventRow(manager, eventId);
  return countedTermsOfEvents(manager, [eventId]);
}

/**
 * What countedTermsOf reads back for an event just created with these linked
 * terms and this status, known without a read.
 */
export function countedTermsOfNewEvent(status: unknown, termIds: number[]): number[] {
  return status === COUNTED_STATUS ? [...new Set(termIds)] : [];
}

/** What countedTermsOf gives, for many events: one entry per published event and term. */
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
 * Applies an event write's effect on term counts (`before` and `after` from
 * countedTermsOf) and records the terms whose count moved as changed; their
 * taxonomies are read unless `taxonomies` (term ID → taxonomy) names them all.
 */
export async function adjustTermCounts(
  manager: EntityManager,
  before: number[],
  after: number[],
  taxonomies?: ReadonlyMap<number, string>,
): Promise<void> {
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
    recordChanges(
      manager,
      terms.map((term) => ({ kind: termKind(term.taxonomy), id: term.id, action: 'updated' })),
    );
  }
  for (const [change, ids] of byChange) {
    await manager
      .createQueryBuilder()
      .update(Term)
      .set({ publishedCount: () => `published_count + ${Number(change)}` })
      .where('id IN (:...ids)', { ids })
      .execute();
  }
}
