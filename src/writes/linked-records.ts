import type { EntityManager } from 'typeorm';
import type { ChangeKind } from './change-kinds';
import type { TrackedChange } from './change-tracker';

/** Link tables by kind: the events that embed a venue, organizer or term (all indexed by the linked ID). */
const LINKS: Record<Exclude<ChangeKind, 'event'>, string> = {
  venue: 'SELECT id FROM events WHERE venue_id = ?',
  organizer: 'SELECT event_id AS id FROM event_organizers WHERE organizer_id = ?',
  category: 'SELECT event_id AS id FROM event_terms WHERE term_id = ?',
  tag: 'SELECT event_id AS id FROM event_terms WHERE term_id = ?',
};

/**
 * The events that link the record, as `updated` changes: read inside the
 * write, before it unlinks them. With `via`, they are announced only
 * because who may see the linked record changed.
 */
export async function linkedEventChanges(
  manager: EntityManager,
  kind: Exclude<ChangeKind, 'event'>,
  id: number,
  options: { via?: boolean } = {},
): Promise<TrackedChange[]> {
  const rows = (await manager.query(LINKS[kind], [id])) as Array<{ id: number | string }>;
  return rows.map((row) => ({
    kind: 'event',
    id: Number(row.id),
    action: 'updated',
    ...(options.via ? { via: { kind, id } } : {}),
  }));
}

/** Whether a change of status or author can change who sees a venue or organizer (contract §4). */
export function visibilityMoves(
  before: { status: string; authorId: number },
  after: { status?: string; authorId?: number },
): boolean {
  const status = after.status ?? before.status;
  const authorId = after.authorId ?? before.authorId;
  if ((before.status === 'publish') !== (status === 'publish')) return true;
  return status !== 'publish' && authorId !== before.authorId;
}
