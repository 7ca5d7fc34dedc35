import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { Event } from './entities/event.entity';

// Apart from event-write.ts, whose pure functions the bench's baseline loads without TypeORM.

/** `post_parent`: 0 clears it; otherwise an existing event other than this one (else 400). */
export async function resolveParent(
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
