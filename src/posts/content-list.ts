import { Brackets, EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { AuthUser } from '../auth/auth-user';
import { AccessPolicy } from '../auth/policy';
import type { RequestContext } from '../common/http/request-context';
import { assertPageExists, PageWindow, pageWindow } from '../common/pagination/list-page';
import { nowEpoch } from '../common/time/dates';
import { EVENTS_TABLE, linkedEventExists } from '../database/event-links';
import { otherLanguage, type Language } from '../i18n/language';
import type { ContentEntity, ContentKind, ContentTranslation } from './content-kind';
import type { ContentListQueryDto } from './dto/content.dto';
import { applyStatusScope, assertVisibleFilter, listStatusScope } from './post-access';
import { loadPosts } from './post-store';
import { LIKE_ESCAPE, likeContains, searchWords } from './search';

/** Event statuses that do not count for `has_events` (docs/api.md §5.2). */
const NOT_LIVE = ['draft', 'pending', 'trash'];

export interface ContentPage<E> {
  items: E[];
  total: number;
  window: PageWindow;
}

/**
 * One page of a venue or organizer list (docs/api.md §5, §5.2): publication
 * date descending, then ID descending. The page's IDs are selected first
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
  applySearch(qb, kind, query.search, ctx.language);
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
  const rows: Array<{ id: number | string }> = await qb
    .select('p.id', 'id')
    .orderBy('p.publishedAt', 'DESC')
    .addOrderBy('p.id', 'DESC')
    .offset(window.offset)
    .limit(window.perPage)
    .getRawMany();
  const ids = rows.map((row) => Number(row.id));
  const loaded = await loadPosts(manager, kind, ids);
  // A record deleted between the page query and this read is left out, not a 500.
  return { items: ids.flatMap((id) => loaded.get(id) ?? []), total, window };
}

/**
 * `search` (docs/api.md §5.2): a record matches when one of its fields holds
 * every word. Translated fields are those the record shows: the requested
 * language's, or the other one's when it has none (the `fb` join only
 * matches then).
 */
function applySearch<E extends ContentEntity<T>, T extends ContentTranslation>(
  qb: SelectQueryBuilder<E>,
  kind: ContentKind<E, T, unknown, unknown>,
  search: string | undefined,
  language: Language,
): void {
  const words = searchWords(search ?? '');
  if (words.length === 0) return;
  const owner = kind.ownerKey;
  qb.leftJoin(kind.translation, 'tr', `tr.${owner} = p.id AND tr.language = :searchLanguage`, {
    searchLanguage: language,
  }).leftJoin(
    kind.translation,
    'fb',
    `fb.${owner} = p.id AND fb.language = :searchFallback AND tr.id IS NULL`,
    { searchFallback: otherLanguage(language) },
  );
  const fields = [
    'COALESCE(tr.nameKey, fb.nameKey)',
    'LOWER(COALESCE(tr.description, fb.description))',
    'LOWER(COALESCE(tr.excerpt, fb.excerpt))',
    ...kind.searchColumns.map((column) => `LOWER(p.${column})`),
  ];
  const params = Object.fromEntries(
    words.map((word, i) => [`searchWord${i}`, likeContains(word.toLowerCase())]),
  );
  const allWords = (field: string) =>
    words.map((_, i) => `${field} LIKE :searchWord${i} ${LIKE_ESCAPE}`).join(' AND ');
  qb.andWhere(
    new Brackets((any) => {
      for (const field of fields) any.orWhere(`(${allWords(field)})`);
    }),
    params,
  );
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
