import { preReadManager } from '../common/http/write-request';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, ObjectLiteral } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { ErrorKey } from '../common/errors/error-codes';
import type { RequestContext } from '../common/http/request-context';
import { committedRead } from '../database/write-transaction';
import { isExternalId, isExternalSource } from './dto/external-key.dto';
import { ExternalKey, findByExternalKey } from './external-keys';
import type { PostRef } from './post-store';

/** What an upsert answers: the record, and whether it was made (201) or replaced (200). */
export interface Upserted<R> {
  record: R;
  created: boolean;
}

/** A kind's own write flows, which the upsert reuses unchanged. */
export interface UpsertTarget<R, D> {
  entity: new () => ObjectLiteral;
  /** The kind's 404 code, met when the record is deleted between the lookup and the update. */
  notFound: ErrorKey;
  writes: {
    create(input: D, ctx: RequestContext): Promise<R>;
    update(ref: PostRef, input: D, ctx: RequestContext): Promise<R>;
  };
}

/** Lookups of a key per upsert: a lost race (or a delete in between) costs one more. */
const MAX_ROUNDS = 3;

/**
 * `PUT {api}/<kind>/by-external-id/{source}/{id}` (docs/api.md §17): the
 * record holding the key is updated by the kind's update (If-Match, 428,
 * 403 as there), else one is created with the key by the kind's create.
 * Concurrent upserts of one new key all create; the unique index lets one
 * commit, and the others' creates fail with 409 `rest_external_id_taken`
 * (their transaction, retried on the unique violation, found the winner's
 * row): they look the key up again and update the winner instead.
 */
@Injectable()
export class ExternalKeyUpserts {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async upsert<R, D extends { external_id?: ExternalKey | null }>(
    target: UpsertTarget<R, D>,
    path: { source: string; id: string },
    body: D,
    ctx: RequestContext,
  ): Promise<Upserted<R>> {
    const key = parseKey(path, body);
    const input = { ...body, external_id: key } as D;
    for (let round = 1; ; round++) {
      const last = round >= MAX_ROUNDS;
      const id = await this.lookUp(target, key, ctx);
      try {
        if (id !== undefined) {
          return { record: await target.writes.update({ id }, input, ctx), created: false };
        }
        // No record has the key: If-Match (a tag or `*`) cannot hold (RFC 9110 §13.1.1).
        if (ctx.precondition?.ifMatch !== undefined) throw new ApiError('rest_precondition_failed');
        return { record: await target.writes.create(input, ctx), created: true };
      } catch (error) {
        const raced =
          error instanceof ApiError &&
          (error.key === 'rest_external_id_taken' || error.key === target.notFound);
        if (!raced || last) throw error;
      }
    }
  }

  /**
   * The record holding the key, as committed; in an atomic batch (docs/api.md
   * §18), as the batch's transaction sees it, so a key written by an earlier
   * operation is found (and SQLite's write queue, which the batch holds, is not waited on).
   */
  private lookUp(
    target: UpsertTarget<unknown, unknown>,
    key: ExternalKey,
    ctx: RequestContext,
  ): Promise<number | undefined> {
    if (ctx.write?.batch)
      return findByExternalKey(
        preReadManager(ctx.write, this.dataSource.manager),
        target.entity,
        key,
      );
    return committedRead(this.dataSource, () =>
      findByExternalKey(this.dataSource.manager, target.entity, key),
    );
  }
}

/**
 * The key the path names (400 naming `source` or `id` when malformed); an
 * `external_id` in the body must be the same key (else 400 `external_id`).
 */
function parseKey(
  path: { source: string; id: string },
  body: { external_id?: ExternalKey | null },
): ExternalKey {
  if (!isExternalSource(path.source)) throw ApiError.invalid('source', 'isExternalSource');
  if (!isExternalId(path.id)) throw ApiError.invalid('id', 'isExternalId');
  const sent = body.external_id;
  if (sent !== undefined && (sent?.source !== path.source || sent?.id !== path.id))
    throw ApiError.invalid('external_id', 'keyMismatch');
  return { source: path.source, id: path.id };
}
