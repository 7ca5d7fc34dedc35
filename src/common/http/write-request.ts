import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { BatchTransaction } from '../../writes/batch-transaction';
import type { VersionBumps } from '../cache/version-bumps';

/**
 * An idempotency claim as a write transaction sees it (docs/api.md §13): the
 * commit pipeline marks it committed just before the numbering, in the
 * write's transaction, so the key and the write commit together.
 */
export interface WriteClaim {
  /** False once the request's handler returned: later writes are not the request's. */
  readonly active: boolean;
  /** The claim's key says its write committed; throws when another request took the key over. */
  markCommitted(manager: EntityManager): Promise<void>;
}

/**
 * What an HTTP write request adds to each of its write transactions, attached
 * to the request by the idempotency and write-version interceptors and handed
 * to services in `RequestContext.write`. Background writers pass none.
 */
export interface WriteRequest {
  /** The request's `Idempotency-Key` claim, when it sent one. */
  claim?: WriteClaim;
  /** Where its transactions report what they did to the data version. */
  bumps?: VersionBumps;
  /**
   * Set on the operations of an atomic batch (docs/api.md §18): their writes
   * join the batch's transaction instead of committing on their own.
   */
  batch?: BatchTransaction;
}

/**
 * Where a write reads before its transaction (the record to authorise, a key
 * to look up): the pool, or in an atomic batch (docs/api.md §18) the batch's
 * transaction, so that an operation sees what the operations before it wrote.
 */
export function preReadManager(
  write: WriteRequest | undefined,
  pool: EntityManager,
): EntityManager {
  return write?.batch?.unit.manager ?? pool;
}

/** A request that carries its WriteRequest (set by the interceptors, read by requestContextOf). */
export interface WriteRequestHolder {
  writeRequest?: WriteRequest;
}

/** The request's WriteRequest, made on first use: the interceptors fill it in, services read it. */
export function writeRequestOf(req: WriteRequestHolder): WriteRequest {
  return (req.writeRequest ??= {});
}

/** Injects the request's WriteRequest, for write routes that take no RequestContext. */
export const Write = createParamDecorator((_: unknown, ctx: ExecutionContext): WriteRequest =>
  writeRequestOf(ctx.switchToHttp().getRequest<WriteRequestHolder>()),
);
