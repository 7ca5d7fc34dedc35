import {
  EntityManager,
  EntityTarget,
  FindOptionsWhere,
  In,
  ObjectLiteral,
  SelectQueryBuilder,
} from 'typeorm';
import type { AuthUser } from '../auth/auth-user';
import { AccessPolicy, OwnedItem, POST_STATUSES, PostStatus } from '../auth/policy';
import { ApiError } from '../common/errors/api-error';
import { ErrorKey } from '../common/errors/error-codes';
import type { RequestContext } from '../common/http/request-context';

/*
 * Who may see, list, create and edit events, venues and organizers: the
 * role table (auth/policy.ts) applied to reads, lists and writes.
 */

/** Which statuses a list shows, and whether unpublished rows must be the caller's own. */
export interface StatusScope {
  statuses: PostStatus[];
  ownerId?: number;
}

const ALL_BUT_TRASH = POST_STATUSES.filter((s) => s !== 'trash');

/**
 * The list `status` filter (docs/api.md §4): anonymous callers and subscribers
 * may ask only for `publish`; others get every status but trash by default,
 * limited to their own items below editor.
 */
export function listStatusScope(
  user: AuthUser | undefined,
  requested: PostStatus[] | undefined,
): StatusScope {
  if (!AccessPolicy.canListUnpublished(user)) {
    if (requested?.some((s) => s !== 'publish'))
      throw ApiError.invalid('status', 'statusNotAllowed');
    return { statuses: ['publish'] };
  }
  const statuses = requested && requested.length > 0 ? requested : ALL_BUT_TRASH;
  return { statuses, ownerId: AccessPolicy.seesAllUnpublished(user) ? undefined : user?.id };
}

/** Adds the scope to a query over `alias` (with `status` and `authorId` properties). */
export function applyStatusScope<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  scope: StatusScope,
): SelectQueryBuilder<T> {
  qb.andWhere(`${alias}.status IN (:...scopeStatuses)`, { scopeStatuses: scope.statuses });
  if (scope.ownerId !== undefined && scope.statuses.some((s) => s !== 'publish')) {
    qb.andWhere(`(${alias}.status = :scopePublished OR ${alias}.authorId = :scopeOwner)`, {
      scopePublished: 'publish',
      scopeOwner: scope.ownerId,
    });
  }
  return qb;
}

/**
 * Single reads (docs/api.md §4): a caller who may not see the item gets 403,
 * with `trashed` for a trashed event (`event-no-longer-available`).
 */
export function assertCanSee(
  user: AuthUser | undefined,
  item: OwnedItem,
  errors: { notAccessible: ErrorKey; trashed?: ErrorKey },
): void {
  if (AccessPolicy.canSeeItem(user, item)) return;
  throw new ApiError(
    item.status === 'trash' && errors.trashed ? errors.trashed : errors.notAccessible,
  );
}

/** Update and delete need the role table's permission (403 otherwise). */
export function assertCanEdit(user: AuthUser | undefined, item: OwnedItem): void {
  if (!AccessPolicy.canEditItem(user, item)) throw ApiError.forbidden();
}

/** Create needs the role table's right (docs/api.md §3). */
export function assertCanCreate(user: AuthUser | undefined): void {
  if (!AccessPolicy.canCreateItem(user)) throw ApiError.forbidden();
}

/** `context=edit` needs a caller (401); whether they may edit is checked per record. */
export function editContext(context: 'view' | 'edit' | undefined, ctx: RequestContext): boolean {
  if (context !== 'edit') return false;
  if (!ctx.user) throw ApiError.unauthorized();
  return true;
}

/**
 * A filter naming records by ID (`event`, `post`, `post_parent`, `venue`,
 * `organizer`) needs ones the caller may see: else 400 naming the parameter
 * (docs/api.md §5).
 */
export async function assertVisibleFilter(
  manager: EntityManager,
  entity: EntityTarget<OwnedItem & { id: number }>,
  id: number | number[],
  user: AuthUser | undefined,
  parameter: string,
): Promise<void> {
  // A record the caller may not see answers as one that does not exist, so
  // the answer never tells whether a hidden record is there.
  const ids = [...new Set(Array.isArray(id) ? id : [id])];
  if (ids.length === 0) return;
  const items = await manager.find(entity, {
    where: { id: In(ids) } as FindOptionsWhere<OwnedItem & { id: number }>,
    select: { id: true, authorId: true, status: true },
  });
  const visible = items.filter((item) => AccessPolicy.canSeeItem(user, item));
  if (visible.length !== ids.length) throw ApiError.invalid(parameter, 'notFound');
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
