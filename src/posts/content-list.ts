import { EntityManager, ObjectLiteral } from 'typeorm';
import type { AuthUser } from '../auth/auth-user';
import { AccessPolicy } from '../auth/policy';
import type { RequestContext } from '../common/http/request-context';
import { assertPageExists, PageWindow, pageWindow } from '../common/pagination/list-page';
import { nowEpoch } from '../common/time/dates';
import { EVENTS_TABLE, linkedEventExists } from '../database/event-links';
import type { ContentEntity, ContentKind, ContentTranslation } from './content-kind';
import type { ContentListQueryDto } from './dto/content.dto';
import { applyStatusScope, assertVisibleFilter, listStatusScope } from './post-access';
import { loadPosts } from './post-store';
import { applyContentSearch, SEARCH_MATCHES } from './content-search';
import { fullTextWords } from './search';

/** Event statuses that do not count for `has_events` (docs/api.md §5.2). */
const NOT_LIVE = ['draft', 'pending', 'trash'];

export interface ContentPage<E> {
  items: E[];
  total: number;
  window: PageWindow;
}

/**
 * One page of a venue or organizer list (docs/api.md §5, §5.2): publication
 * date descending, then ID descending (by relevance first when asked with
 * search words). The page's IDs are selected first
 * (no joins multiply rows), then the records with their translations are
 * loaded in one query.
 */
export async function findContentPage<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: ContentKind<E, T, unknown, unknown>,
  query: ContentListQueryDto,
  ctx: RequestContext,
  maxPerPage: number,
): Promise<ContentPage<E>> {
  const scope = listStatusScope(ctx.user, query.status);
  if (query.event !== undefined)
    await assertVisibleFilter(manager, EVENTS_TABLE, query.event, ctx.user, 'event');
  const window = pageWindow(query, maxPerPage);

  const qb = manager.createQueryBuilder(kind.entity, 'p');
  applyStatusScope(qb, 'p', scope);
  const words = fullTextWords(query.search ?? '');
  const byRelevance = query.orderby === 'relevance' && words.length > 0;
  if (words.length > 0) applyContentSearch(qb, kind, words, ctx.language, byRelevance);
  if (query.external_source !== undefined) {
    qb.andWhere('p.externalSource = :externalSource', { externalSource: query.external_source });
  }
  const linked = (condition: string) => linkedEventExists(kind.titleWire, 'p.id', condition);
  if (query.event !== undefined) {
    qb.andWhere(linked('e.id = :linkedEvent'), { linkedEvent: query.event });
  }
  if (query.has_events !== undefined) {
    const live = linked('e.status NOT IN (:...notLive)');
    qb.andWhere(`${query.has_events ? '' : 'NOT '}${live}`, { notLive: NOT_LIVE });
  }
  if (query.only_with_upcoming) {
    const visible = visibleEvents(ctx.user);
    const upcoming = linked(`e.start_at >= :upcomingFrom AND ${visible.sql}`);
    qb.andWhere(upcoming, {
      upcomingFrom: nowEpoch(),
      ...visible.params,
    });
  }

  const total = await qb.getCount();
  assertPageExists(window, total, kind.errors.pageNotFound);
  qb.select('p.id', 'id');
  if (byRelevance) qb.orderBy(`${SEARCH_MATCHES}.score`, 'DESC');
  const rows: Array<{ id: number | string }> = await qb
    .addOrderBy('p.publishedAt', 'DESC')
    .addOrderBy('p.id', 'DESC')
    .offset(window.offset)
    .limit(window.perPage)
    .getRawMany();
  const ids = rows.map((row) => Number(row.id));
  const loaded = await loadPosts(manager, kind, ids);
  // A record deleted between the page query and this read is left out, not a 500.
  return { items: ids.flatMap((id) => loaded.get(id) ?? []), total, window };
}

/** Events the caller may see (docs/api.md §4), trashed ones left out. */
function visibleEvents(user: AuthUser | undefined): { sql: string; params: ObjectLiteral } {
  const params = { eventTrash: 'trash', eventPublished: 'publish' };
  if (AccessPolicy.seesAllUnpublished(user)) return { sql: 'e.status != :eventTrash', params };
  if (AccessPolicy.canListUnpublished(user)) {
    return {
      sql: 'e.status != :eventTrash AND (e.status = :eventPublished OR e.author_id = :eventOwner)',
      params: { ...params, eventOwner: user?.id },
    };
  }
  return { sql: 'e.status = :eventPublished', params };
}
