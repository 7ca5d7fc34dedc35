import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { nameKeyOf } from '../common/text/name-key';
import { ApiError } from '../common/errors/api-error';
import type { RequestContext } from '../common/http/request-context';
import type { Tagged } from '../common/http/tagged-record';
import { recordTag } from '../common/http/record-tag';
import { assertPrecondition } from '../common/http/write-precondition';
import { lockRow } from '../database/row-lock';
import { ListPage, pageWindow } from '../common/pagination/list-page';
import { appConfig } from '../config/app.config';
import { termKind } from '../writes/change-kinds';
import { EVENTS_TABLE, linkedEventChanges, unlinkEvents } from '../database/event-links';
import { Writes } from '../writes/writes.service';
import { assertVisibleFilter, editContext } from '../posts/post-access';
import { toSlug } from '../posts/slugs';
import { applyTranslatedFields } from '../posts/translations';
import { TermTranslation } from './entities/term-translation.entity';
import { Term } from './entities/term.entity';
import { findTermPage, TermListInput } from './term-list-query';
import { mapTerm, TermRecord } from './term.mapper';
import {
  assertCanManage,
  assertNameFree,
  freeTermSlug,
  insertTerm,
  loadTerms,
  termMapOptions,
} from './term-store';
import { TaxonomyInfo } from './taxonomies';

/** Term writes: tags have no `parent`; categories may. */
export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  parent?: number;
}

/**
 * Categories and tags: list, read, create, update and delete, one
 * implementation parametrised by taxonomy (docs/api.md §5.3, §6, §7). The list
 * query is in term-list-query.ts; what events use is TermLinksService.
 */
@Injectable()
export class TermsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly writes: Writes,
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
      await assertVisibleFilter(this.dataSource.manager, EVENTS_TABLE, eventId, ctx.user, parameter);
    }

    const window = pageWindow(query, this.config.maxPerPage);
    const manager = this.dataSource.manager;
    const page = await findTermPage(manager, info, query, ctx.language, eventId, window);
    const terms = await loadTerms(manager, page.ids);
    const options = termMapOptions(ctx, this.config.publicSiteUrl, withTranslations);
    const items = page.ids.map((id) => mapTerm(terms.get(id) as Term, info, options));
    return new ListPage(info.collection, items, page.total, window);
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

  async create(
    info: TaxonomyInfo,
    input: TermInput,
    ctx: RequestContext,
  ): Promise<Tagged<TermRecord>> {
    assertCanManage(info, ctx.user);
    const parentId = await this.resolveParent(info, input.parent, undefined);
    const name = (input.name as string).trim();
    // The answer is what its ETag hashes, read in the transaction (not again after COMMIT).
    const record = await this.writes.run(ctx.write, async (unit) => {
      const { manager } = unit;
      await assertNameFree(manager, info, ctx.language, parentId, name, undefined);
      const created = await insertTerm(manager, info, {
        language: ctx.language,
        name,
        parentId,
        description: input.description,
        slug: input.slug,
      });
      unit.record([{ kind: termKind(info.taxonomy), id: created, action: 'created' }]);
      return this.readRecord(manager, info, created, ctx);
    });
    return { record, etag: recordTag(record) };
  }

  async update(
    info: TaxonomyInfo,
    id: number,
    input: TermInput,
    ctx: RequestContext,
  ): Promise<Tagged<TermRecord>> {
    const current = await this.findOrFail(info, id);
    assertCanManage(info, ctx.user);
    const parentId =
      input.parent === undefined
        ? current.parentId
        : await this.resolveParent(info, input.parent, id);
    const record = await this.writes.run(ctx.write, async (unit) => {
      const { manager } = unit;
      await lockRow(manager, Term, id);
      await assertPrecondition(ctx.precondition, () => this.readRecord(manager, info, id, ctx));
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
        translation.nameKey = nameKeyOf(name);
        await assertNameFree(manager, info, ctx.language, parentId, name, id);
      }
      if (translation && (input.slug || !translation.slug)) {
        translation.slug = await freeTermSlug(
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
            await assertNameFree(manager, info, other.language, parentId, other.name, id);
        }
      }
      term.parentId = parentId;
      for (const t of term.translations) t.parentId = parentId;
      await manager.save(Term, term);
      await manager.save(TermTranslation, term.translations);
      unit.record([{ kind: termKind(info.taxonomy), id, action: 'updated' }]);
      return this.readRecord(manager, info, id, ctx);
    });
    return { record, etag: recordTag(record) };
  }

  /** Permanent delete; answers the term as it was. Children of a category lose their parent. */
  async remove(info: TaxonomyInfo, id: number, ctx: RequestContext): Promise<TermRecord> {
    const term = await this.findOrFail(info, id);
    assertCanManage(info, ctx.user);
    const record = this.map(info, term, ctx, false);
    await this.writes.run(ctx.write, async (unit) => {
      const { manager } = unit;
      await lockRow(manager, Term, id);
      await assertPrecondition(ctx.precondition, () => this.readRecord(manager, info, id, ctx));
      // Unparented children must not clash with top-level namesakes (the unique name index).
      const children = await manager.find(TermTranslation, {
        where: { parentId: id, taxonomy: info.taxonomy },
      });
      for (const child of children)
        await assertNameFree(manager, info, child.language, 0, child.name, child.termId);
      const kind = termKind(info.taxonomy);
      unit.record([
        ...[...new Set(children.map((child) => child.termId))].map((childId) => ({
          kind,
          id: childId,
          action: 'updated' as const,
        })),
        ...(await linkedEventChanges(manager, kind, id)),
        { kind, id, action: 'deleted', permanent: true },
      ]);
      await manager.update(Term, { parentId: id, taxonomy: info.taxonomy }, { parentId: 0 });
      await manager.update(
        TermTranslation,
        { parentId: id, taxonomy: info.taxonomy },
        { parentId: 0 },
      );
      await unlinkEvents(manager, 'term', id);
      await manager.delete(Term, { id });
    });
    return record;
  }

  /**
   * The term as a GET without `context` shows it, read on `manager` (a
   * write's transaction): what its ETag hashes.
   */
  private async readRecord(
    manager: EntityManager,
    info: TaxonomyInfo,
    id: number,
    ctx: RequestContext,
  ): Promise<TermRecord> {
    return this.map(info, await this.findOrFail(info, id, manager), ctx, false);
  }

  private async findOrFail(
    info: TaxonomyInfo,
    id: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Term> {
    // One LEFT JOIN (loadTerms): findOne() with the relation sends a DISTINCT query and then the rows.
    const term = id ? (await loadTerms(manager, [id])).get(id) : undefined;
    if (!term || term.taxonomy !== info.taxonomy || term.translations.length === 0)
      throw new ApiError(info.notFound);
    return term;
  }

  private map(info: TaxonomyInfo, term: Term, ctx: RequestContext, withTranslations: boolean) {
    return mapTerm(term, info, termMapOptions(ctx, this.config.publicSiteUrl, withTranslations));
  }

  /** context=edit needs a caller who may edit terms of this taxonomy. */
  private assertContext(
    info: TaxonomyInfo,
    context: 'view' | 'edit' | undefined,
    ctx: RequestContext,
  ): boolean {
    if (!editContext(context, ctx)) return false;
    assertCanManage(info, ctx.user);
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
}
