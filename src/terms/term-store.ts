import { nameKeyOf } from '../common/text/name-key';
import type { EntityManager } from 'typeorm';
import type { AuthUser } from '../auth/auth-user';
import { AccessPolicy } from '../auth/policy';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import { nowEpoch } from '../common/time/dates';
import { insertRow } from '../database/entity-inserts';
import { recordsWithTranslations } from '../database/entity-rows';
import type { Language } from '../i18n/language';
import { freeSlug, toSlug } from '../posts/slugs';
import { TermTranslation } from './entities/term-translation.entity';
import { Term } from './entities/term.entity';
import type { TermMapOptions } from './term.mapper';
import type { TaxonomyInfo } from './taxonomies';

/*
 * What the term CRUD (TermsService) and the event links (TermLinksService)
 * share: the manage right, storage of a new term, the name and slug rules.
 */

/** Creating, changing and deleting terms needs the role table's right (else 403). */
export function assertCanManage(info: TaxonomyInfo, user: AuthUser | undefined): void {
  if (!AccessPolicy.canManageTerms(user, info.taxonomy)) throw ApiError.forbidden();
}

export function termMapOptions(
  ctx: RequestContext,
  siteUrl: string,
  withTranslations: boolean,
): TermMapOptions {
  return { language: ctx.language, apiUrl: ctx.apiUrl, siteUrl, withTranslations };
}

/** Terms with translations by ID, in two queries side by side. */
export function loadTerms(manager: EntityManager, ids: number[]): Promise<Map<number, Term>> {
  return recordsWithTranslations(manager, Term, ids);
}

/**
 * Inserts a term with its first translation in `language`, its slug made
 * from `slug` (else the name) and free in the taxonomy; returns its ID.
 */
export async function insertTerm(
  manager: EntityManager,
  info: TaxonomyInfo,
  input: {
    language: Language;
    name: string;
    parentId: number;
    description?: string;
    slug?: string;
  },
): Promise<number> {
  const slug = await freeTermSlug(
    manager,
    info,
    input.language,
    toSlug(input.slug || input.name, 'term'),
    undefined,
  );
  // Plain INSERTs: save() would read each new row's defaults back in another statement.
  const termId = await insertRow(manager, Term, {
    taxonomy: info.taxonomy,
    parentId: input.parentId,
    createdAt: nowEpoch(),
  });
  await insertRow(manager, TermTranslation, {
    termId,
    taxonomy: info.taxonomy,
    parentId: input.parentId,
    language: input.language,
    name: input.name,
    nameKey: nameKeyOf(input.name),
    slug,
    description: input.description ?? null,
  });
  return termId;
}

/** 400 `term_exists` when another term of the taxonomy has the name under the parent in `language`. */
export async function assertNameFree(
  manager: EntityManager,
  info: TaxonomyInfo,
  language: string,
  parentId: number,
  name: string,
  selfId: number | undefined,
): Promise<void> {
  const clash = await manager.findOne(TermTranslation, {
    where: { taxonomy: info.taxonomy, language, parentId, nameKey: nameKeyOf(name) },
    select: { id: true, termId: true },
  });
  if (clash && clash.termId !== selfId)
    throw new ApiError('term_exists', { data: { term_id: clash.termId } });
}

/** `base`, or the first free `base-N`, among the taxonomy's slugs in `language`. */
export function freeTermSlug(
  manager: EntityManager,
  info: TaxonomyInfo,
  language: string,
  base: string,
  selfId: number | undefined,
): Promise<string> {
  return freeSlug(
    manager,
    TermTranslation,
    'termId',
    { taxonomy: info.taxonomy, language },
    base,
    selfId,
  );
}
