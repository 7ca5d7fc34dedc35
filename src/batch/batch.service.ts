import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthUser } from '../auth/auth-user';
import { ApiError, InvalidReason } from '../common/errors/api-error';
import { renderError } from '../common/errors/api-exception.filter';
import type { RequestContext } from '../common/http/request-context';
import { BatchTransaction } from '../writes/batch-transaction';
import { Writes } from '../writes/writes.service';
import { isBatchPath } from './batch-paths';
import { BulkCreates, bulkRunLength } from './bulk-creates';
import type { BatchAnswerDto } from './dto/batch-answer.dto';
import {
  type BatchOperationDto,
  type BatchRequestDto,
  MAX_HEADER_VALUE,
  OPERATION_HEADERS,
} from './dto/batch-request.dto';
import { OperationAnswer, OperationDispatcher, OperationRequest } from './operation-dispatcher';

/** An operation of an atomic batch failed: its transaction rolls back with this. */
class AtomicBatchFailed extends Error {
  constructor(
    readonly index: number,
    readonly answer: OperationAnswer,
  ) {
    super('atomic batch failed');
  }
}

/** A run of creates the set-based path would not write as alone: its transaction rolls back with this. */
class BulkRunRefused extends Error {
  constructor(readonly counted: number) {
    super('bulk run refused');
  }
}

/**
 * `POST {api}/batch` (docs/api.md §18): runs each operation, in order,
 * through the route it names (OperationDispatcher), so each is authorised,
 * validated, rate limited, conditional and idempotent as alone. By default
 * each commits on its own; an atomic batch runs them all in one write
 * transaction (Writes.run), which their writes join (WriteRequest.batch),
 * and rolls it back at the first failure. In both, a run of plain event
 * creates is written as one set (BulkCreates), answered as through its routes.
 */
@Injectable()
export class BatchService {
  constructor(
    private readonly dispatcher: OperationDispatcher,
    private readonly writes: Writes,
    private readonly bulkCreates: BulkCreates,
  ) {}

  async run(body: BatchRequestDto, ctx: RequestContext, req: Request): Promise<BatchAnswerDto> {
    // The batch itself needs a token; what each operation may do is its route's question.
    const caller = ctx.user;
    if (!caller) throw ApiError.unauthorized();
    const atomic = body.atomic === true;
    const operations = operationRequests(body.operations, atomic);
    // Its operations' writes bump the data version, as alone or at the atomic batch's COMMIT.
    ctx.write?.bumps?.writesNothingItself();
    if (atomic) return this.runAtomic(operations, ctx, caller, req);
    const results: OperationAnswer[] = [];
    for (let index = 0; index < operations.length;) {
      const length = bulkRunLength(operations, index);
      if (length > 0) {
        const run = operations.slice(index, index + length);
        results.push(...(await this.runCreatesOnTheirOwn(run, ctx, caller, req)));
        index += length;
      } else {
        results.push(await this.dispatcher.dispatch(operations[index], req, caller, {}));
        index++;
      }
    }
    return { atomic: false, failed_operation: null, results };
  }

  /**
   * A run of plain event creates in a default batch: written as one set
   * (BulkCreates) in one transaction when every create of it succeeds, which
   * no client can tell from each committing on its own; when any would fail,
   * nothing of the set is kept and each create runs through its route and
   * commits on its own, so the others still succeed and every answer is its
   * route's. The batch request's Idempotency-Key claim stays with the batch's
   * answer, as for its operations sent one by one.
   */
  private async runCreatesOnTheirOwn(
    run: OperationRequest[],
    ctx: RequestContext,
    caller: AuthUser,
    req: Request,
  ): Promise<OperationAnswer[]> {
    let counted = 0;
    try {
      return await this.writes.run({ bumps: ctx.write?.bumps }, async (unit) => {
        const bulk = await this.bulkCreates.run(run, new BatchTransaction(unit), ctx, caller, req);
        if ('answers' in bulk) return bulk.answers;
        throw new BulkRunRefused(bulk.counted);
      });
    } catch (error) {
      if (!(error instanceof BulkRunRefused)) throw error;
      counted = error.counted;
    }
    const answers: OperationAnswer[] = [];
    for (const [index, operation] of run.entries()) {
      const dispatched = index < counted ? { ...operation, counted: true } : operation;
      answers.push(await this.dispatcher.dispatch(dispatched, req, caller, {}));
    }
    return answers;
  }

  /**
   * The answers of the operations from `start` on in an atomic batch: a run
   * of creates the bulk path takes (BulkCreates), or else one operation, or
   * the run operation by operation up to its first failure.
   */
  private async runFrom(
    operations: OperationRequest[],
    start: number,
    batch: BatchTransaction,
    ctx: RequestContext,
    caller: AuthUser,
    req: Request,
  ): Promise<OperationAnswer[]> {
    const length = bulkRunLength(operations, start);
    const run = operations.slice(start, start + Math.max(length, 1));
    let counted = 0;
    if (length > 0) {
      const bulk = await this.bulkCreates.run(run, batch, ctx, caller, req);
      if ('answers' in bulk) return bulk.answers;
      counted = bulk.counted;
    }
    const answers: OperationAnswer[] = [];
    for (const [index, operation] of run.entries()) {
      const dispatched = index < counted ? { ...operation, counted: true } : operation;
      const answer = await this.dispatcher.dispatch(dispatched, req, caller, { batch });
      // Its writes are over (also after a time-out); a conflict retries the whole transaction.
      await batch.settle();
      answers.push(answer);
      if (answer.status >= 400) break;
    }
    return answers;
  }

  private async runAtomic(
    operations: OperationRequest[],
    ctx: RequestContext,
    caller: AuthUser,
    req: Request,
  ): Promise<BatchAnswerDto> {
    try {
      // The batch request's own claim (its Idempotency-Key) and version bumps go with the transaction.
      return await this.writes.run(ctx.write, async (unit) => {
        const batch = new BatchTransaction(unit);
        const results: OperationAnswer[] = [];
        for (let index = 0; index < operations.length;) {
          const answers = await this.runFrom(operations, index, batch, ctx, caller, req);
          for (const answer of answers) {
            if (answer.status >= 400) throw new AtomicBatchFailed(index, answer);
            results.push(answer);
            index++;
          }
        }
        return { atomic: true, failed_operation: null, results };
      });
    } catch (error) {
      if (!(error instanceof AtomicBatchFailed)) throw error;
      return rolledBack(error, operations.length, ctx);
    }
  }
}

/**
 * The operations as the dispatcher takes them, once the envelope holds what
 * its DTO cannot say: paths of the batch collections, header names it knows
 * (in any case), and no per-operation Idempotency-Key in an atomic batch (its
 * claim would need a transaction of its own while the batch holds one).
 */
function operationRequests(operations: BatchOperationDto[], atomic: boolean): OperationRequest[] {
  const invalid: Record<string, InvalidReason> = {};
  const reject = (name: string, reason: string) => {
    invalid[name] ??= { reason, args: { name } };
  };
  const requests = operations.map((operation, index): OperationRequest => {
    const at = `operations.${index}`;
    if (!isBatchPath(operation.path)) reject(`${at}.path`, 'isBatchPath');
    const headers: OperationRequest['headers'] = {};
    for (const [name, value] of Object.entries(operation.headers ?? {})) {
      const known = OPERATION_HEADERS.find((header) => header === name.toLowerCase());
      const field = `${at}.headers.${name}`;
      if (!known || headers[known] !== undefined) reject(field, 'isOperationHeader');
      else if (typeof value !== 'string') reject(field, 'isString');
      else if (value.length > MAX_HEADER_VALUE) reject(field, 'maxLength');
      else if (atomic && known === 'idempotency-key') reject(field, 'notInAtomicBatch');
      else headers[known] = value;
    }
    return { method: operation.method, path: operation.path, body: operation.body, headers };
  });
  if (Object.keys(invalid).length > 0) throw new ApiError('rest_invalid_param', { invalid });
  return requests;
}

/** The answer of a rolled-back atomic batch: the failure as it was, 424 for the others. */
function rolledBack(
  failure: AtomicBatchFailed,
  count: number,
  ctx: RequestContext,
): BatchAnswerDto {
  const failed = failure.index;
  const dependent = (key: 'rest_batch_rolled_back' | 'rest_batch_not_executed') => ({
    status: 424,
    headers: {},
    body: renderError(
      new ApiError(key, { args: { failed }, data: { failed_operation: failed } }),
      ctx.language,
    ),
  });
  const results = Array.from({ length: count }, (_, index) =>
    index === failed
      ? failure.answer
      : dependent(index < failed ? 'rest_batch_rolled_back' : 'rest_batch_not_executed'),
  );
  return { atomic: true, failed_operation: failed, results };
}
