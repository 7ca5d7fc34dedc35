import { ApiError } from '../common/errors/api-error';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import type { Term } from '../terms/entities/term.entity';
import type { LockedTerm } from '../terms/term-counts';
import { termIdsNamedIn } from '../terms/term-links.service';
import type { UpdateEventDto } from './dto/update-event.dto';
import type { Event } from './entities/event.entity';
import type { LinkChanges } from './event-store';

/*
 * What an event write knows about its terms before it reads them: the IDs
 * its input names, the terms it links, and whether their counts may move.
 */

/** The term IDs an event write's `categories` and `tags` name (not those named by name). */
export function namedTermIds(input: UpdateEventDto): number[] {
  return [...termIdsNamedIn(input.categories), ...termIdsNamedIn(input.tags)];
}

/** The terms a write links, categories first. */
export function termIdsOf(links: LinkChanges): number[] {
  return [...(links.categoryIds ?? []), ...(links.tagIds ?? [])];
}

/**
 * Whether an update may move term counts: it sends terms or a new status, or
 * the event is part of a series (whose writes move its occurrences' counts).
 * Otherwise its terms are neither locked nor counted again.
 */
export function termCountsMayMove(
  input: UpdateEventDto,
  status: unknown,
  event: Pick<Event, 'status' | 'seriesId' | 'recurrence'>,
): boolean {
  return (
    input.categories !== undefined ||
    input.tags !== undefined ||
    (status !== undefined && status !== event.status) ||
    event.seriesId !== null ||
    event.recurrence !== null ||
    input.recurrence !== undefined
  );
}

/** The taxonomy of each term a write links, as its links name them. */
export function taxonomiesOf(links: LinkChanges): Map<number, string> {
  return new Map([
    ...(links.categoryIds ?? []).map((id): [number, string] => [id, CATEGORIES.taxonomy]),
    ...(links.tagIds ?? []).map((id): [number, string] => [id, TAGS.taxonomy]),
  ]);
}

/**
 * Throws 400 naming `categories` or `tags` unless every term the write links
 * exists in that taxonomy (`taxonomies`: term ID → taxonomy, as the write's
 * locking read found them). Terms it made by name pass by construction.
 */
export function checkLinkedTerms(
  links: LinkChanges,
  taxonomies: ReadonlyMap<number, string>,
): void {
  for (const [info, ids] of [
    [CATEGORIES, links.categoryIds],
    [TAGS, links.tagIds],
  ] as const) {
    if (ids?.some((id) => taxonomies.get(id) !== info.taxonomy))
      throw ApiError.invalid(info.collection, 'notFound');
  }
}

/**
 * Sets the counts of term rows read before their lock to what COMMIT makes
 * them: the locking read's count, plus one for each term the create counts
 * (`counted`, as adjustTermCounts moved them). The lock keeps every other
 * writer off them until then.
 */
export function countedFromLock(
  terms: Map<number, Term>,
  locked: ReadonlyMap<number, LockedTerm>,
  counted: number[],
): void {
  const added = new Set(counted);
  for (const [id, term] of terms) {
    const found = locked.get(id);
    if (found) term.publishedCount = found.publishedCount + (added.has(id) ? 1 : 0);
  }
}
