import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, EntityManager, In } from 'typeorm';
import { AccessPolicy } from '../auth/policy';
import { freeSlug, toSlug } from '../posts/slugs';
import { applyTranslatedFields } from '../posts/translations';
import { ApiError } from '../common/errors/api-error';
import { writeTransaction } from '../database/write-transaction';
import { recordsWithTranslations } from '../database/entity-rows';
import { isUniqueViolation } from '../common/errors/database-errors';
import { MAX_LIST_ITEMS } from '../common/validation/decorators';
import { parseId, parseList } from '../common/validation/input-parsing';
import type { RequestContext } from '../common/http/request-context';
import { ListPage, pageWindow } from '../common/pagination/list-page';
import { likeContains, LIKE_ESCAPE } from '../posts/search';
import { nowEpoch } from '../common/time/dates';
import { appConfig } from '../config/app.config';
import { Event } from '../events/entities/event.entity';
import { EventTerm } from '../events/entities/event-term.entity';
import { otherLanguage } from '../i18n/language';
import { assertVisibleFilter, editContext } from '../posts/post-access';
import { TermTranslation } from './entities/term-translation.entity';
import { Term } from './entities/term.entity';
import { TermListQueryDto } from './dto/term-list.query.dto';
import { mapTerm, TermRecord } from './term.mapper';
import { CATEGORIES, TAGS, TaxonomyInfo } from './taxonomies';

/** Term writes: tags have no `parent`; categories may. */
export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  parent?: number;
}

export interface TermListInput extends TermListQueryDto {
  parent?: number;
}

/**
 * Categories and tags: one implementation, parametrised by taxonomy
 * (contract §5.3, §6, §7).
 */
@Injectable()
export class TermsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
  ) {}

  async list(
    info: TaxonomyInfo,
    query: TermListInput,
    ctx: RequestContext,
  ): Promise<ListPage<TermRecord>> {
    const withTranslations = this.assertContext(info, query.context, ctx);
    await this.assertTermsExist(info, 'include', query.include);
    await this.assertTermsExist(info, 'exclude', query.exclude);
    if (query.parent !== undefined) await this.assertTermsExist(info, 'parent', [query.parent]);
    const eventId = query.event ?? query.post;
    if (eventId !== undefined) {
      const parameter = query.event !== undefined ? 'event' : 'post';
      await assertVisibleFilter(this.dataSource.manager, Event, eventId, ctx.user, parameter);
    }

    const window = pageWindow(query, this.config.maxPerPage);
    const qb = this.listQuery(info, query, ctx, eventId);
    const total = await qb.clone().getCount();
    const direction = query.order === 'desc' ? 'DESC' : 'ASC';
    const rows: Array<{ id: number | string }> = await qb
      .select('t.id', 'id')
      .addSelect(this.sortExpression(query), 'sort_key')
      .orderBy('sort_key', direction)
      .addOrderBy('t.id', direction)
      .offset(window.offset)
      .limit(window.perPage)
      .getRawMany();
    const terms = await this.loadTerms(rows.map((r) => Number(r.id)));
    const items = rows.map((row) =>
      mapTerm(terms.get(Number(row.id)) as Term, info, this.mapOptions(ctx, withTranslations)),
    );
    return new ListPage(info.collection, items, total, window);
  }

  async get(
    info: TaxonomyInfo,
    id: number,
    ctx: RequestContext,
    context?: 'view' | 'edit',
  ): Promise<TermRecord> {
    const withTranslations = this.assertContext(info, context, ctx);
    const term = await this.findOrFail(info, id);
    return this.map(info, term, ctx, withTranslations);
  }

  async create(info: TaxonomyInfo, input: TermInput, ctx: RequestContext): Promise<TermRecord> {
    this.assertCanManage(info, ctx);
    const parentId = await this.resolveParent(info, input.parent, undefined);
    const name = (input.name as string).trim();
    const id = await writeTransaction(this.dataSource, async (manager) => {
      await this.assertNameFree(manager, info, ctx.language, parentId, name, undefined);
      const slug = await this.freeTermSlug(
        manager,
        info,
        ctx.language,
        toSlug(input.slug || name, 'term'),
        undefined,
      );
      const term = await manager.save(Term, {
        taxonomy: info.taxonomy,
        parentId,
        createdAt: nowEpoch(),
      });
      await manager.save(TermTranslation, {
        termId: term.id,
        taxonomy: info.taxonomy,
        parentId,
        language: ctx.language,
        name,
        nameKey: name.toLowerCase(),
        slug,
        description: input.description ?? null,
      });
      return term.id;
    });
    return this.map(info, await this.findOrFail(info, id), ctx, false);
  }

  async update(
    info: TaxonomyInfo,
    id: number,
    input: TermInput,
    ctx: RequestContext,
  ): Promise<TermRecord> {
    const current = await this.findOrFail(info, id);
    this.assertCanManage(info, ctx);
    const parentId =
      input.parent === undefined
        ? current.parentId
        : await this.resolveParent(info, input.parent, id);
    await writeTransaction(this.dataSource, async (manager) => {
      const term = (await manager.findOne(Term, {
        where: { id },
        relations: { translations: true },
      })) as Term;
      const name = input.name?.trim();
      const translation = applyTranslatedFields(
        term.translations,
        ctx.language,
        // The slug counts as a translated field (a new language then needs the name); it is
        // made free below. '' means "not sent", so it never clears a slug.
        { name, description: input.description, slug: input.slug || undefined },
        { field: 'name', wireName: 'name' },
        () =>
          manager.create(TermTranslation, {
            termId: id,
            taxonomy: info.taxonomy,
            description: null,
          }),
      );
      if (translation && name !== undefined) {
        translation.nameKey = name.toLowerCase();
        await this.assertNameFree(manager, info, ctx.language, parentId, name, id);
      }
      if (translation && (input.slug || !translation.slug)) {
        translation.slug = await this.freeTermSlug(
          manager,
          info,
          ctx.language,
          toSlug(input.slug || translation.name, 'term'),
          id,
        );
      }
      if (parentId !== term.parentId) {
        // Every name not checked above must be free under the new parent too.
        for (const other of term.translations) {
          if (other !== translation || name === undefined)
            await this.assertNameFree(manager, info, other.language, parentId, other.name, id);
        }
      }
      term.parentId = parentId;
      for (const t of term.translations) t.parentId = parentId;
      await manager.save(Term, term);
      await manager.save(TermTranslation, term.translations);
    });
    return this.map(info, await this.findOrFail(info, id), ctx, false);
  }

  /** Permanent delete; answers the term as it was. Children of a category lose their parent. */
  async remove(info: TaxonomyInfo, id: number, ctx: RequestContext): Promise<TermRecord> {
    const term = await this.findOrFail(info, id);
    this.assertCanManage(info, ctx);
    const record = await this.map(info, term, ctx, false);
    await writeTransaction(this.dataSource, async (manager) => {
      // Unparented children must not clash with top-level namesakes (the unique name index).
      const children = await manager.find(TermTranslation, {
        where: { parentId: id, taxonomy: info.taxonomy },
      });
      for (const child of children)
        await this.assertNameFree(manager, info, child.language, 0, child.name, child.termId);
      await manager.update(Term, { parentId: id, taxonomy: info.taxonomy }, { parentId: 0 });
      await manager.update(
        TermTranslation,
        { parentId: id, taxonomy: info.taxonomy },
        { parentId: 0 },
      );
      await manager.delete(EventTerm, { termId: id });
      await manager.delete(Term, { id });
    });
    return record;
  }

  /** Term records by ID with their counts, in two queries (events embed these). */
  async recordsByIds(ids: number[], ctx: RequestContext): Promise<Map<number, TermRecord>> {
    const unique = [...new Set(ids)];
    const terms = await this.loadTerms(unique);
    const records = new Map<number, TermRecord>();
    for (const term of terms.values()) {
      if (term.translations.length === 0) continue;
      const info = term.taxonomy === CATEGORIES.taxonomy ? CATEGORIES : TAGS;
      records.set(term.id, mapTerm(term, info, this.mapOptions(ctx, false)));
    }
    return records;
  }

  /**
   * An event's `categories`/`tags` input (contract §6): IDs or names/slugs,
   * mixed, array or comma list. Unknown IDs → 400; unknown names create the
   * term in the request's language if the caller may, else 403. `""`/[] → [].
   * Runs inside the event write's transaction.
   */
  async resolveForEvent(
    manager: EntityManager,
    info: TaxonomyInfo,
    input: unknown,
    ctx: RequestContext,
  ): Promise<number[] | undefined> {
    if (input === undefined) return undefined;
    if (input === null || input === '' || input === 0) return [];
    const values = parseList(input);
    if (!values || values.length > MAX_LIST_ITEMS || values.some((v) => String(v).length > 200)) {
      throw ApiError.invalid(info.collection, 'invalid');
    }
    // Every ID is checked in one query first, so no term is created by name for a write that fails.
    const numeric = values.map(String).filter((text) => /^\d+$/.test(text));
    const known = [...new Set(numeric.map((text) => parseId(text)))];
    if (known.length > 0) {
      const found = known.includes(undefined)
        ? 0
        : await manager.count(Term, {
            where: { id: In(known as number[]), taxonomy: info.taxonomy },
          });
      if (found !== known.length) throw ApiError.invalid(info.collection, 'notFound');
    }
    const ids: number[] = [];
    for (const value of values) {
      const text = String(value);
      ids.push(
        /^\d+$/.test(text)
          ? (parseId(text) as number)
          : await this.findOrCreateByName(manager, info, text, ctx),
      );
    }
    return [...new Set(ids)];
  }

  /** List filters: slugs or IDs to term IDs; a term that does not exist → 400. */
  async idsForFilter(
    info: TaxonomyInfo,
    values: Array<string | number>,
    paramName: string,
  ): Promise<number[]> {
    const ids = new Set<number>();
    const numeric = values.filter((v) => typeof v === 'number' || /^\d+$/.test(v)).map(Number);
    const slugs = values.filter((v) => typeof v === 'string' && !/^\d+$/.test(v)) as string[];
    if (numeric.length > 0) {
      const found = await this.dataSource
        .getRepository(Term)
        .find({ where: { id: In(numeric), taxonomy: info.taxonomy }, select: { id: true } });
      if (found.length !== new Set(numeric).size) throw ApiError.invalid(paramName, 'notFound');
      found.forEach((t) => ids.add(t.id));
    }
    if (slugs.length > 0) {
      const found = await this.dataSource.getRepository(TermTranslation).find({
        where: { slug: In(slugs), taxonomy: info.taxonomy },
        select: { termId: true, slug: true },
      });
      if (new Set(found.map((t) => t.slug)).size !== new Set(slugs).size)
        throw ApiError.invalid(paramName, 'notFound');
      found.forEach((t) => ids.add(t.termId));
    }
    return [...ids];
  }

  /** A term named (or slugged) `text` in any language, else a new one in the request's language. */
  private async findOrCreateByName(
    manager: EntityManager,
    info: TaxonomyInfo,
    text: string,
    ctx: RequestContext,
  ): Promise<number> {
    const name = text.trim();
    const existing = await manager
      .createQueryBuilder(TermTranslation, 's')
      .select(['s.termId', 's.language'])
      .where('s.taxonomy = :taxonomy', { taxonomy: info.taxonomy })
      .andWhere('(s.nameKey = :nameKey OR s.slug = :slug)', {
        nameKey: name.toLowerCase(),
        slug: toSlug(name, '-'),
      })
      .orderBy('s.parentId', 'ASC')
      .getMany();
    const match = existing.find((t) => t.language === ctx.language) ?? existing[0];
    if (match) return match.termId;
    this.assertCanManage(info, ctx);
    // A savepoint, so a concurrent insert of the same name can be retried inside the event's transaction.
    for (let attempt = 1; ; attempt++) {
      const runner = manager.queryRunner;
      const savepoint = `term_${attempt}`;
      if (runner) await runner.query(`SAVEPOINT ${savepoint}`);
      try {
        const slug = await this.freeTermSlug(
          manager,
          info,
          ctx.language,
          toSlug(name, 'term'),
          undefined,
        );
        const term = await manager.save(Term, {
          taxonomy: info.taxonomy,
          parentId: 0,
          createdAt: nowEpoch(),
        });
        await manager.save(TermTranslation, {
          termId: term.id,
          taxonomy: info.taxonomy,
          parentId: 0,
          language: ctx.language,
          name,
          nameKey: name.toLowerCase(),
          slug,
          description: null,
        });
        if (runner) await runner.query(`RELEASE SAVEPOINT ${savepoint}`);
        return term.id;
      } catch (error) {
        // A deadlock rolls the whole transaction (savepoints included) back: then rethrow
        // it, not "savepoint does not exist", so writeTransaction retries the transaction.
        if (runner)
          await runner
            .query(`ROLLBACK TO SAVEPOINT ${savepoint}`)
            .catch(() => Promise.reject(error));
        if (!isUniqueViolation(error) || attempt >= 5) throw error;
        const raced = await manager.findOne(TermTranslation, {
          where: {
            taxonomy: info.taxonomy,
            language: ctx.language,
            parentId: 0,
            nameKey: name.toLowerCase(),
          },
          select: { termId: true },
        });
        if (raced) return raced.termId;
      }
    }
  }

  /** Terms with translations by ID (for the events mapper too). */
  async loadTerms(ids: number[]): Promise<Map<number, Term>> {
    return recordsWithTranslations(this.dataSource.manager, Term, ids);
  }

  private listQuery(
    info: TaxonomyInfo,
    query: TermListInput,
    ctx: RequestContext,
    eventId: number | undefined,
  ) {
    const qb = this.dataSource
      .createQueryBuilder(Term, 't')
      .leftJoin(TermTranslation, 'tr', 'tr.termId = t.id AND tr.language = :language', {
        language: ctx.language,
      })
      .leftJoin(TermTranslation, 'fb', 'fb.termId = t.id AND fb.language = :fallback', {
        fallback: otherLanguage(ctx.language),
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
      qb.andWhere(
        't.id IN ' +
          qb
            .subQuery()
            .select('l.termId')
            .from(EventTerm, 'l')
            .where('l.eventId = :eventId')
            .getQuery(),
        { eventId },
      );
    }
    return qb;
  }

  private sortExpression(query: TermListInput): string {
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

  private async findOrFail(info: TaxonomyInfo, id: number): Promise<Term> {
    const term = id
      ? await this.dataSource.getRepository(Term).findOne({
          where: { id, taxonomy: info.taxonomy },
          relations: { translations: true },
        })
      : null;
    if (!term || term.translations.length === 0) throw new ApiError(info.notFound);
    return term;
  }

  private map(info: TaxonomyInfo, term: Term, ctx: RequestContext, withTranslations: boolean) {
    return mapTerm(term, info, this.mapOptions(ctx, withTranslations));
  }

  private mapOptions(ctx: RequestContext, withTranslations: boolean) {
    return {
      language: ctx.language,
      apiUrl: ctx.apiUrl,
      siteUrl: this.config.publicSiteUrl,
      withTranslations,
    };
  }

  private assertCanManage(info: TaxonomyInfo, ctx: RequestContext): void {
    if (!AccessPolicy.canManageTerms(ctx.user, info.taxonomy)) throw ApiError.forbidden();
  }

  /** context=edit needs a caller who may edit terms of this taxonomy. */
  private assertContext(
    info: TaxonomyInfo,
    context: 'view' | 'edit' | undefined,
    ctx: RequestContext,
  ): boolean {
    if (!editContext(context, ctx)) return false;
    this.assertCanManage(info, ctx);
    return true;
  }

  private async assertTermsExist(
    info: TaxonomyInfo,
    name: string,
    ids: number[] | undefined,
  ): Promise<void> {
    if (!ids?.length) return;
    const found = await this.dataSource
      .getRepository(Term)
      .count({ where: { id: In([...new Set(ids)]), taxonomy: info.taxonomy } });
    if (found !== new Set(ids).size) throw ApiError.invalid(name, 'notFound');
  }

  /** Categories only: an existing category, not the term itself nor one of its descendants. */
  private async resolveParent(
    info: TaxonomyInfo,
    parent: number | undefined,
    selfId: number | undefined,
  ): Promise<number> {
    if (!info.hasParent || !parent) return 0;
    const repo = this.dataSource.getRepository(Term);
    let cursor: number = parent;
    for (let depth = 0; cursor !== 0; depth++) {
      if (cursor === selfId) throw ApiError.invalid('parent', 'parentCycle');
      const node = await repo.findOne({
        where: { id: cursor, taxonomy: info.taxonomy },
        select: { id: true, parentId: true },
      });
      if (!node) throw ApiError.invalid('parent', 'notFound');
      if (depth > 100) break;
      cursor = node.parentId;
    }
    return parent;
  }

  private async assertNameFree(
    manager: EntityManager,
    info: TaxonomyInfo,
    language: string,
    parentId: number,
    name: string,
    selfId: number | undefined,
  ): Promise<void> {
    const clash = await manager.findOne(TermTranslation, {
      where: { taxonomy: info.taxonomy, language, parentId, nameKey: name.toLowerCase() },
      select: { id: true, termId: true },
    });
    if (clash && clash.termId !== selfId)
      throw new ApiError('term_exists', { data: { term_id: clash.termId } });
  }

  private freeTermSlug(
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
}
