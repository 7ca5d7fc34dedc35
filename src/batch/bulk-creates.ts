import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthUser } from '../auth/auth-user';
import { isRetryableConflict } from '../common/errors/database-errors';
import { locationOf } from '../common/http/tagged-record';
import type { RequestContext } from '../common/http/request-context';
import { writeAnswer } from '../common/http/write-answer';
import type { WriteRequest } from '../common/http/write-request';
import { OperationRateLimit } from '../common/limits/operation-rate-limit';
import { ApiValidationPipe } from '../common/validation/api-validation.pipe';
import { CreateEventDto } from '../events/dto/create-event.dto';
import { EventBulkWrites } from '../events/event-bulk-writes';
import {
  type EventRows,
  EventRecordsService,
  WRITTEN_EVENT_ROWS,
} from '../events/event-records.service';
import { assertCanCreate } from '../posts/post-access';
import type { Term } from '../terms/entities/term.entity';
import { countedTermsOfNewEvent } from '../terms/term-counts';
import type { TermRecord } from '../terms/term.mapper';
import type { BatchTransaction } from '../writes/batch-transaction';
import type { ChangeKind } from '../writes/change-kinds';
import { ChangeTracker, mergeChanges, type TrackedChange } from '../writes/change-tracker';
import { WriteUnit } from '../writes/write-unit';
import type { OperationAnswer, OperationRequest } from './operation-dispatcher';

/** Fewer operations than this run one by one: a bulk run pays off from two creates on. */
const MIN_RUN = 2;

/** What a bulk run gives: every operation's answer, or how many leading operations it counted. */
export type BulkRunResult = { answers: OperationAnswer[] } | { counted: number };

/** The run's writes could not be told apart per operation, or its last hit was over the budget. */
class NotAsAlone extends Error {
  constructor(readonly counted = 0) {
    super('bulk run not as alone');
  }
}

/**
 * How many operations from `start` form a run of plain event creates a bulk
 * run takes: `POST /events` with no query and no headers of their own, and a
 * body without `recurrence` or `post_parent` (a series or a child goes
 * through its route, as EventBulkWrites would write it apart anyway). 0 when
 * the run is shorter than MIN_RUN.
 */
export function bulkRunLength(operations: readonly OperationRequest[], start: number): number {
  let end = start;
  while (end < operations.length && isPlainCreate(operations[end])) end++;
  return end - start >= MIN_RUN ? end - start : 0;
}

function isPlainCreate(operation: OperationRequest): boolean {
  const { body } = operation;
  if (operation.method !== 'POST' || operation.path !== '/events') return false;
  if (Object.keys(operation.headers).length > 0 || body === undefined) return false;
  const { recurrence } = body;
  const noRule = recurrence === undefined || recurrence === null;
  return (
    (noRule || (Array.isArray(recurrence) && recurrence.length === 0)) &&
    body.post_parent === undefined
  );
}

/**
 * A run of event creates in a batch (docs/api.md §18) written as one set
 * (EventBulkWrites.createMany) instead of through the route stack once per
 * operation: each body validated by the route's pipe, each operation counted
 * against the rate limit and authorised as alone, the events written in a
 * savepoint of the transaction (the atomic batch's, or the run's own in a
 * default batch), their records read in one go and each answered with the
 * status, headers and body of its route, a term's count as after that create.
 * The change listeners hear each operation's changes apart, and the batch
 * numbers them in the operations' order, as the same creates one by one.
 *
 * Anything that would fail (validation, authorisation, a reference, the
 * budget) rolls the savepoint back and the batch runs the run operation by
 * operation (`counted`: the leading operations whose hit is counted
 * already), so every error answer is the route's own.
 */
@Injectable()
export class BulkCreates {
  private readonly pipe = new ApiValidationPipe();

  constructor(
    private readonly bulk: EventBulkWrites,
    private readonly records: EventRecordsService,
    private readonly tracker: ChangeTracker,
    private readonly rateLimit: OperationRateLimit,
  ) {}

  async run(
    run: readonly OperationRequest[],
    batch: BatchTransaction,
    ctx: RequestContext,
    caller: AuthUser,
    from: Request,
  ): Promise<BulkRunResult> {
    const inputs: CreateEventDto[] = [];
    for (const [index, operation] of run.entries()) {
      try {
        inputs.push(await this.validate(operation.body));
      } catch {
        return { counted: await this.count(from, index + 1) };
      }
    }
    try {
      assertCanCreate(caller);
    } catch {
      return { counted: await this.count(from, 1) };
    }
    const request: WriteRequest = { batch };
    const opCtx: RequestContext = { ...ctx, user: caller, precondition: undefined, write: request };
    let written: Written;
    try {
      written = await batch.unit.manager.transaction(async (manager) => {
        const unit = new WriteUnit(manager, request, batch.unit);
        const result = await this.write(unit, inputs, opCtx);
        const counted = await this.count(from, run.length);
        if (counted < run.length) throw new NotAsAlone(counted);
        return result;
      });
    } catch (error) {
      // A deadlock ended the batch's transaction: it is retried whole, as for any operation.
      if (isRetryableConflict(error)) throw error;
      return { counted: error instanceof NotAsAlone ? error.counted : 0 };
    }
    // Numbered in the operations' order (mergeChanges keeps the first place of a record).
    const ordered = new WriteUnit(batch.unit.manager, request, batch.unit);
    ordered.record(written.perOperation.flat());
    batch.unit.adopt(ordered);
    batch.unit.adopt(written.unit);
    return { answers: written.answers };
  }

  /** The body as the route's pipe makes it (ApiValidationPipe on CreateEventDto); throws its 400. */
  private async validate(body: Record<string, unknown> | undefined): Promise<CreateEventDto> {
    return (await this.pipe.transform(body, {
      type: 'body',
      metatype: CreateEventDto,
      data: undefined,
    })) as CreateEventDto;
  }

  /** Counts `count` operations' hits in order; how many were within the budget. */
  private async count(from: Request, count: number): Promise<number> {
    for (let counted = 0; counted < count; counted++)
      if (!(await this.rateLimit.count(from))) return counted;
    return count;
  }

  /** The writes, each operation's changes announced apart, and the answers. */
  private async write(
    unit: WriteUnit,
    inputs: CreateEventDto[],
    ctx: RequestContext,
  ): Promise<Written> {
    const ids = await this.bulk.createMany(unit, inputs, ctx);
    const rows = await this.records.loadRows(unit.manager, ids);
    const perOperation = changesPerOperation(ids, rows, unit.changes());
    const laterCounts = countsOfLaterOperations(ids, rows);
    for (const [index, changes] of perOperation.entries()) {
      // The webhook records are rendered from these rows (WRITTEN_EVENT_ROWS), each term's
      // count as after this create, as alone.
      unit.keep(WRITTEN_EVENT_ROWS, rowsAsOf(rows, laterCounts[index]));
      await this.tracker.announce(unit, changes);
    }
    const records = new Map(
      this.records
        .mapRows(rows, ctx, () => ({ withJsonLd: true, withTranslations: false }))
        .map((record) => [record.id, record]),
    );
    const answers = ids.map((id, index): OperationAnswer => {
      const record = records.get(id);
      if (!record) throw new NotAsAlone();
      const { answer, etag, bytes } = writeAnswer(recordAsOf(record, laterCounts[index]));
      const location = locationOf(answer);
      return {
        status: 201,
        headers: { etag, ...(location ? { location } : {}) },
        // As the route's JSON answer reads back.
        body: JSON.parse(bytes.toString('utf8')) as Record<string, unknown>,
      };
    });
    return { unit, perOperation, answers };
  }
}

interface Written {
  unit: WriteUnit;
  perOperation: TrackedChange[][];
  answers: OperationAnswer[];
}

/**
 * The changes each create would have recorded alone, from what the run
 * recorded: the records it made inline for the event (a venue, organizers,
 * terms by name; each by the first event that links it), the terms whose
 * count it moved, in ID order (adjustTermCounts), and the event. Throws
 * NotAsAlone when the run recorded anything else.
 */
function changesPerOperation(
  ids: readonly number[],
  rows: EventRows,
  recorded: readonly TrackedChange[],
): TrackedChange[][] {
  const keyOf = (kind: ChangeKind, id: number) => `${kind}:${id}`;
  const made = recorded.filter((change) => change.kind !== 'event' && change.action === 'created');
  const termKinds = new Map(
    recorded.flatMap((change) =>
      change.kind === 'category' || change.kind === 'tag' ? [[change.id, change.kind]] : [],
    ),
  );
  const termIdsOf = idsByEvent(rows.links.termLinks.map((l) => [l.eventId, l.termId]));
  const organizerIdsOf = idsByEvent(
    rows.links.organizerLinks.map((l) => [l.eventId, l.organizerId]),
  );
  const taken = new Set<string>();
  const perOperation = ids.map((id) => {
    const event = rows.events.get(id);
    if (!event) throw new NotAsAlone();
    const termIds = termIdsOf.get(id) ?? [];
    const linked = new Set([
      ...(event.venueId ? [keyOf('venue', event.venueId)] : []),
      ...(organizerIdsOf.get(id) ?? []).map((organizerId) => keyOf('organizer', organizerId)),
      ...termIds.flatMap((termId) => {
        const kind = termKinds.get(termId);
        return kind ? [keyOf(kind, termId)] : [];
      }),
    ]);
    const changes: TrackedChange[] = made.filter((change) => {
      const key = keyOf(change.kind, change.id);
      if (taken.has(key) || !linked.has(key)) return false;
      taken.add(key);
      return true;
    });
    for (const termId of countedTermsOfNewEvent(event.status, termIds).sort((a, b) => a - b)) {
      const kind = termKinds.get(termId);
      if (!kind) throw new NotAsAlone();
      changes.push({ kind, id: termId, action: 'updated' });
    }
    changes.push({ kind: 'event', id, action: 'created' });
    return mergeChanges(changes);
  });
  const attributed = mergeChanges(perOperation.flat());
  const asRecorded = (changes: readonly TrackedChange[]) =>
    changes.map((change) => `${keyOf(change.kind, change.id)}:${change.action}`).sort();
  if (asRecorded(attributed).join() !== asRecorded(recorded).join()) throw new NotAsAlone();
  return perOperation;
}

/**
 * For each create, how many of the creates after it count each term (a
 * published event with it): what the term's count after the whole run holds
 * beyond its count after that create.
 */
function countsOfLaterOperations(ids: readonly number[], rows: EventRows): Map<number, number>[] {
  const termIdsOf = idsByEvent(rows.links.termLinks.map((l) => [l.eventId, l.termId]));
  const later = new Map<number, number>();
  const counts: Map<number, number>[] = new Array<Map<number, number>>(ids.length);
  for (let index = ids.length - 1; index >= 0; index--) {
    counts[index] = new Map(later);
    const event = rows.events.get(ids[index]);
    for (const termId of countedTermsOfNewEvent(event?.status, termIdsOf.get(ids[index]) ?? []))
      later.set(termId, (later.get(termId) ?? 0) + 1);
  }
  return counts;
}

/** The rows with each term's count less what the creates after this one added. */
function rowsAsOf(rows: EventRows, later: ReadonlyMap<number, number>): EventRows {
  if (later.size === 0) return rows;
  const terms = new Map(rows.terms);
  for (const [termId, added] of later) {
    const term = terms.get(termId);
    if (term)
      terms.set(
        termId,
        Object.assign(Object.create(Object.getPrototypeOf(term) as object) as Term, term, {
          publishedCount: term.publishedCount - added,
        }),
      );
  }
  return { ...rows, terms };
}

/** The event's record with its categories' and tags' counts as after this create. */
function recordAsOf<R extends { categories: TermRecord[]; tags: TermRecord[] }>(
  record: R,
  later: ReadonlyMap<number, number>,
): R {
  if (later.size === 0) return record;
  const asOf = (terms: TermRecord[]) =>
    terms.map((term) => {
      const added = later.get(term.id);
      return added ? { ...term, count: term.count - added } : term;
    });
  return { ...record, categories: asOf(record.categories), tags: asOf(record.tags) };
}

/** Linked IDs grouped by event, in the rows' order. */
function idsByEvent(pairs: ReadonlyArray<[number, number]>): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  for (const [eventId, id] of pairs) {
    const group = groups.get(eventId);
    if (group) group.push(id);
    else groups.set(eventId, [id]);
  }
  return groups;
}
