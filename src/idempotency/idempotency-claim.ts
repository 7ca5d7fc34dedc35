import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { WriteClaim } from '../common/http/write-request';
import type { ChangeKind } from '../writes/change-kinds';
import { IdempotencyKey } from './idempotency-key.entity';

/**
 * The key of one request, held while its handler runs. The interceptor
 * attaches it to the request (RequestContext.write.claim), so each write
 * transaction of the handler marks the key committed with it (the commit
 * pipeline, writes/writes.service.ts).
 */
export class Claim implements WriteClaim {
  /** False once the handler is done: later writes are not this request's. */
  active = true;

  constructor(
    readonly id: string,
    readonly token: string,
    /** The route's success status: 201 means the answer is a created record. */
    readonly successStatus: number,
    /** The kind of record the route writes (from its path), if any. */
    readonly kind?: ChangeKind,
  ) {}

  /** Before COMMIT of a write made under the claim: the key says the write committed. */
  async markCommitted(manager: EntityManager): Promise<void> {
    // lease_until + 1 always changes the row, so `affected` counts the rows matched on both engines.
    const result = await manager
      .createQueryBuilder()
      .update(IdempotencyKey)
      .set({ state: 'committed', leaseUntil: () => 'lease_until + 1' })
      .where('id = :id AND token = :token', { id: this.id, token: this.token })
      .execute();
    // Another request took the key over (this one outlived its lease): this write must not commit.
    if (!result.affected) throw new ApiError('rest_idempotency_key_in_use');
  }
}
