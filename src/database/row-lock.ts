import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * The first statement of a transaction that changes an existing record: on
 * MySQL it waits for any other write of the record to commit, and since no
 * snapshot exists yet, every later read sees that write (so an If-Match check
 * and the write see the same record). SQLite's writes are already one at a time.
 */
export async function lockRow<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  id: number,
): Promise<void> {
  if (manager.connection.options.type !== 'mysql') return;
  await manager
    .createQueryBuilder(entity, 'r')
    .select('r.id')
    .where('r.id = :id', { id })
    .setLock('pessimistic_write')
    .getRawOne();
}
