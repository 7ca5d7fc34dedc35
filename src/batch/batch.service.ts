import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError, InvalidReason } from '../common/errors/api-error';
import { renderError } from '../common/errors/api-exception.filter';
import type { RequestContext } from '../common/http/request-context';
import { BatchTransaction } from '../writes/batch-transaction';
import { Writes } from '../writes/writes.service';
import { isBatchPath } from './batch-paths';
import type { BatchAnswerDto } from './dto/batch-answer.dto';
import type { BatchOperationDto, BatchRequestDto } from './dto/batch-request.dto';
import { OperationAnswer, OperationDispatcher } from './operation-dispatcher';

/** An operation of an atomic batch failed: its transaction rolls back with this. */
class AtomicBatchFailed extends Error {
  constructor(
    readonly index: number,
    readonly answer: OperationAnswer,
  ) {
    super('atomic batch failed');
  }
}

/**
 * `POST {api}/batch` (docs/api.md §18): runs each operation, in order,
 * through the route it names (OperationDispatcher), so each is authorised,
 * validated, rate limited, conditional and idempotent as alone. By default
 * each commits on its own; an atomic batch runs them all in one write
 * transaction (Writes.run), which their writes join (WriteRequest.batch),
 * and rolls it back at the first failure.
 */
@Injectable()
export class BatchService {
  constructor(
    private readonly dispatcher: OperationDispatcher,
    private readonly writes: Writes,
  ) {}

  async run(body: BatchRequestDto, ctx: RequestContext, req: Request): Promise<BatchAnswerDto> {
    // The batch itself needs a token; what each operation may do is its route's question.
    if (!ctx.user) throw ApiError.unauthorized();
    const atomic = body.atomic === true;
    checkOperations(body.operations, atomic);
    if (atomic) return this.runAtomic(body.operations, ctx, req);
    const results: OperationAnswer[] = [];
    for (const operation of body.operations)
      results.push(await this.dispatcher.dispatch(operation, req, {}));
    return { atomic: false, failed_operation: null, results };
  }

  private async runAtomic(
    operations: BatchOperationDto[],
    ctx: RequestContext,
    req: Request,
  ): Promise<BatchAnswerDto> {
    try {
      // The batch request's own claim (its Idempotency-Key) and version bumps go with the transaction.
      return await this.writes.run(ctx.write, async (unit) => {
        const batch = new BatchTransaction(unit);
        const results: OperationAnswer[] = [];
        for (const [index, operation] of operations.entries()) {
          const answer = await this.dispatcher.dispatch(operation, req, { batch });
          // Its writes are over (also after a time-out); a conflict retries the whole transaction.
          await batch.settle();
          if (answer.status >= 400) throw new AtomicBatchFailed(index, answer);
          results.push(answer);
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
 * What the batch's envelope must hold beyond its DTO: paths of the batch
 * collections, and no per-operation Idempotency-Key in an atomic batch (its
 * claim would need a transaction of its own while the batch holds one).
 */
function checkOperations(operations: BatchOperationDto[], atomic: boolean): void {
  const invalid: Record<string, InvalidReason> = {};
  const reject = (name: string, reason: string) => {
    invalid[name] ??= { reason, args: { name } };
  };
  for (const [index, operation] of operations.entries()) {
    if (!isBatchPath(operation.path)) reject(`operations.${index}.path`, 'isBatchPath');
    if (atomic && operation.headers?.['Idempotency-Key'] !== undefined)
      reject(`operations.${index}.headers.Idempotency-Key`, 'notInAtomicBatch');
  }
  if (Object.keys(invalid).length > 0) throw new ApiError('rest_invalid_param', { invalid });
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
