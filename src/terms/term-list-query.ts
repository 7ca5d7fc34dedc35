import { Brackets, EntityManager } from 'typeorm';
import { PageWindow } from '../common/pagination/list-page';
import { termsOfEventSql } from '../database/event-links';
import { otherLanguage, type Language } from '../i18n/language';
import { LIKE_ESCAPE, likeContains } from '../posts/search';
import type { TermListQueryDto } from './dto/term-list.query.dto';
import { TermTranslation } from './entities/term-translation.entity';
import { Term } from './entities/term.entity';
import type { TaxonomyInfo } from './taxonomies';

/** A term list's parameters; `parent` only for categories. */
export interface TermListInput extends TermListQueryDto {
  parent?: number;
}

/**
 * The IDs of one page of a category or tag list (docs/api.md §5.3) and the
 * total. Texts are those the term shows: the requested language's, else the
 * other one's (`fb`). Filters are checked by the caller.
 */
export async function findTermPage(
  manager: EntityManager,
  info: TaxonomyInfo,
  query: TermListInput,
  language: Language,
  eventId: number | undefined,
  window: PageWindow,
): Promise<{ ids: number[]; total: number }> {
  const qb = manager
    .createQueryBuilder(Term, 't')
    .leftJoin(TermTranslation, 'tr', 'tr.termId = t.id AND tr.language = :language', { language })
    .leftJoin(TermTranslation, 'fb', 'fb.termId = t.id AND fb.language = :fallback', {
      fallback: otherLanguage(language),
    })
    .where('t.taxonomy = :taxonomy', { taxonomy: info.taxonomy });
  if (query.hide_empty !== false) qb.andWhere('t.publishedCount > 0');
  if (query.search !== undefined) {
    qb.andWhere(
      new Brackets((w) =>
        w
          .where(`COALESCE(tr.nameKey, fb.nameKey) LIKE :search ${LIKE_ESCAPE}`)
          .orWhere(`COALESCE(tr.slug, fb.slug) LIKE :search ${LIKE_ESCAPE}`),
      ),
      { search: likeContains(query.search.toLowerCase()) },
    );
  }
  if (query.include?.length) qb.andWhere('t.id IN (:...include)', { include: query.include });
  if (query.exclude?.length) qb.andWhere('t.id NOT IN (:...exclude)', { exclude: query.exclude });
  if (query.parent !== undefined) qb.andWhere('t.parentId = :parent', { parent: query.parent });
  if (query.slug !== undefined) {
    qb.andWhere(
      't.id IN ' +
        qb
          .subQuery()
          .select('s.termId')
          .from(TermTranslation, 's')
          .where('s.taxonomy = :taxonomy AND s.slug = :slug')
          .getQuery(),
      { slug: query.slug },
    );
  }
  if (eventId !== undefined) {
    qb.andWhere(`t.id IN (${termsOfEventSql('eventId')})`, { eventId });
  }
  const total = await qb.clone().getCount();
  const direction = query.order === 'desc' ? 'DESC' : 'ASC';
  const rows: Array<{ id: number | string }> = await qb
    .select('t.id', 'id')
    .addSelect(sortExpression(query), 'sort_key')
    .orderBy('sort_key', direction)
    .addOrderBy('t.id', direction)
    .offset(window.offset)
    .limit(window.perPage)
    .getRawMany();
  return { ids: rows.map((row) => Number(row.id)), total };
}

/** `orderby` (docs/api.md §5.3); ties are broken by ID in the same direction. */
function sortExpression(query: TermListInput): string {
  switch (query.orderby) {
    case 'id':
      return 't.id';
    case 'slug':
      return 'COALESCE(tr.slug, fb.slug)';
    case 'count':
      return 't.publishedCount';
    case 'description':
      // The description the term shows: its own language's (even when empty), else the fallback's.
      return "CASE WHEN tr.id IS NULL THEN COALESCE(fb.description, '') ELSE COALESCE(tr.description, '') END";
    case 'include':
      return query.include?.length
        ? `CASE ${query.include.map((id, i) => `WHEN t.id = ${Number(id)} THEN ${i}`).join(' ')} ELSE ${query.include.length} END`
        : 't.id';
    default:
      return 'COALESCE(tr.nameKey, fb.nameKey)';
  }
}
