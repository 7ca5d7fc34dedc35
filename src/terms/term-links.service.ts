import { nameKeyOf } from '../common/text/name-key';
import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { termKind } from '../writes/change-kinds';
import type { WriteUnit } from '../writes/write-unit';
import { DataVersionService } from '../common/cache/data-version.service';
import { ApiError } from '../common/errors/api-error';
import { isUniqueViolation } from '../common/errors/database-errors';
import type { RequestContext } from '../common/http/request-context';
import { MAX_LIST_ITEMS } from '../common/validation/decorators';
import { parseId, parseList } from '../common/validation/input-parsing';
import { appConfig } from '../config/app.config';
import { selectRows } from '../database/entity-rows';
import { keptOrLoaded } from '../database/kept-rows';
import { toSlug } from '../posts/slugs';
import { TermTranslation } from './entities/term-translation.entity';
import { Term } from './entities/term.entity';
import { CATEGORIES, TAGS, TaxonomyInfo } from './taxonomies';
import { mapTerm, TermRecord } from './term.mapper';
import { assertCanManage, insertTerm, loadTerms, termMapOptions } from './term-store';

/** resolveForEvent's `checked` for a write that checks the named term IDs when it locks them. */
export const CHECKED_WHEN_LOCKED = 'when-locked';

/**
 * The term IDs an event write's `categories`/`tags` input names (names, and
 * input resolveForEvent rejects, left out): what the write locks and checks
 * in one read before it resolves the input.
 */
export function termIdsNamedIn(input: unknown): number[] {
  if (input === undefined || input === null || input === '' || input === 0) return [];
  const values = parseList(input);
  if (!values || values.length > MAX_LIST_ITEMS) return [];
  return values
    .map(String)
    .filter((text) => /^\d+$/.test(text))
    .flatMap((text) => parseId(text) ?? []);
}

/** A list filter's term IDs, and the data version of the statement that read them. */
export interface FilterTerms {
  ids: number[];
  version: number;
}

/**
 * Which kept filter resolution a read may take: one read at any version
 * (`'any'`: the caller then checks that version against its page's, see
 * EventsService.list), one read at this version only, or none (`'read'`).
 */
export type KeptTerms = 'any' | number | 'read';

/**
 * Filter resolutions kept per instance (slugs and IDs of terms change only
 * with writes, which move the data version the readers check); started over
 * when full. Each key is bounded by the filter's own bounds.
 */
const MAX_KEPT_FILTERS = 1_000;

/** Names per statement of findOrCreateManyByName. */
const NAMES_PER_READ = 50;

/**
 * Categories and tags as events use them (docs/api.md §5.1, §6): the records
 * events embed, the `categories`/`tags` input of event writes (creating
 * terms by name), and the list filters by slug or ID.
 */
@Injectable()
export class TermLinksService {
  private readonly keptFilters = new Map<string, FilterTerms>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly versions: DataVersionService,
  ) {}

  /**
   * Term records by ID with their counts, in one query (events embed these).
   * `rows`: the write's own rows of them, kept in its unit (see
   * WriteUnit.keep); the terms they hold are not read again.
   */
  async recordsByIds(
    ids: number[],
    ctx: RequestContext,
    manager: EntityManager = this.dataSource.manager,
    withTranslations = false,
    rows?: ReadonlyMap<number, Term>,
  ): Promise<Map<number, TermRecord>> {
    const terms = await keptOrLoaded(ids, rows, (missing) => loadTerms(manager, missing));
    return this.mapRecords(terms, ctx, withTranslations);
  }

  /** Term rows (with their translations) mapped as recordsByIds maps them. */
  mapRecords(
    terms: ReadonlyMap<number, Term>,
    ctx: RequestContext,
    withTranslations = false,
  ): Map<number, TermRecord> {
    const options = termMapOptions(ctx, this.config.publicSiteUrl, withTranslations);
    const records = new Map<number, TermRecord>();
    for (const term of terms.values()) {
      if (term.translations.length === 0) continue;
      const info = term.taxonomy === CATEGORIES.taxonomy ? CATEGORIES : TAGS;
      records.set(term.id, mapTerm(term, info, options));
    }
    return records;
  }

  /**
   * An event's `categories`/`tags` input (docs/api.md §6): IDs or names/slugs,
   * mixed, array or comma list. Unknown IDs → 400; unknown names create the
   * term in the request's language if the caller may, else 403. `""`/[] → [].
   * Runs inside the event write's transaction. `checked`: the taxonomies of
   * the terms that exist among termIdsNamedIn(input), read by the write
   * already (lockTermsReadingTaxonomies): then the IDs are checked against it;
   * CHECKED_WHEN_LOCKED: the write checks them itself when it locks the terms
   * (a create, checkLinkedTerms), so none is read here.
   */
  async resolveForEvent(
    unit: WriteUnit,
    info: TaxonomyInfo,
    input: unknown,
    ctx: RequestContext,
    checked?: ReadonlyMap<number, string> | typeof CHECKED_WHEN_LOCKED,
  ): Promise<number[] | undefined> {
    if (input === undefined) return undefined;
    if (input === null || input === '' || input === 0) return [];
    const values = parseList(input);
    if (!values || values.length > MAX_LIST_ITEMS || values.some((v) => String(v).length > 200)) {
      throw ApiError.invalid(info.collection, 'invalid');
    }
    const numeric = values.map(String).filter((text) => /^\d+$/.test(text));
    const known = [...new Set(numeric.map((text) => parseId(text)))];
    if (known.includes(undefined)) throw ApiError.invalid(info.collection, 'notFound');
    // The IDs are checked before any term is made by name (unless the write checks them when it
    // locks the terms: then what it made is rolled back with it).
    if (known.length > 0 && checked !== CHECKED_WHEN_LOCKED) {
      const found = checked
        ? known.filter((id) => checked.get(id as number) === info.taxonomy).length
        : await unit.manager.count(Term, {
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
          : await this.findOrCreateByName(unit, info, text, ctx),
      );
    }
    return [...new Set(ids)];
  }

  /**
   * List filters: slugs or IDs to term IDs (ascending); a term that does not
   * exist → 400. Each resolution is read with the data version in its
   * statement and kept with it; `kept` says which kept one a read may take
   * (KeptTerms).
   */
  async idsForFilter(
    info: TaxonomyInfo,
    values: Array<string | number>,
    paramName: string,
    kept: KeptTerms = 'read',
  ): Promise<FilterTerms> {
    const key = `${info.taxonomy} ${JSON.stringify(values)}`;
    const held = this.keptFilters.get(key);
    if (held && (kept === 'any' || kept === held.version)) return held;
    const read = await this.readFilterIds(info, values, paramName);
    if (this.keptFilters.size >= MAX_KEPT_FILTERS) this.keptFilters.clear();
    this.keptFilters.set(key, read);
    return read;
  }

  /** idsForFilter's read: one statement, the data version in it (there is a row, or it is a 400). */
  private async readFilterIds(
    info: TaxonomyInfo,
    values: Array<string | number>,
    paramName: string,
  ): Promise<FilterTerms> {
    const numeric = [
      ...new Set(values.filter((v) => typeof v === 'number' || /^\d+$/.test(v)).map(Number)),
    ];
    const slugs = [
      ...new Set(values.filter((v): v is string => typeof v === 'string' && !/^\d+$/.test(v))),
    ];
    const version = this.versions.versionSql();
    const marks = (list: unknown[]) => list.map(() => '?').join(', ');
    const parts: string[] = [];
    const parameters: unknown[] = [];
    if (numeric.length > 0) {
      parts.push(
        `SELECT id AS termId, NULL AS slug, ${version} AS version FROM terms ` +
          `WHERE id IN (${marks(numeric)}) AND taxonomy = ?`,
      );
      parameters.push(...numeric, info.taxonomy);
    }
    if (slugs.length > 0) {
      parts.push(
        `SELECT term_id AS termId, slug, ${version} AS version FROM term_translations ` +
          `WHERE slug IN (${marks(slugs)}) AND taxonomy = ?`,
      );
      parameters.push(...slugs, info.taxonomy);
    }
    const rows = (await selectRows(
      this.dataSource.manager,
      parts.join(' UNION ALL '),
      parameters,
    )) as Array<{ termId: number | string; slug: string | null; version: number | string }>;
    const byId = rows.filter((row) => row.slug === null).length;
    const bySlug = new Set(rows.flatMap((row) => (row.slug === null ? [] : [row.slug]))).size;
    if (byId !== numeric.length || bySlug !== slugs.length || rows.length === 0) {
      throw ApiError.invalid(paramName, 'notFound');
    }
    const ids = [...new Set(rows.map((row) => Number(row.termId)))].sort((a, b) => a - b);
    // Frozen: a kept resolution is shared by every list that takes it.
    return Object.freeze({ ids: Object.freeze(ids) as number[], version: Number(rows[0].version) });
  }

  /**
   * findOrCreateByName of many names, keyed by the name as given: the terms
   * that exist found in one statement per NAMES_PER_READ names (one SELECT
   * per name, with findOrCreateByName's condition and order, joined by UNION
   * ALL, so each engine compares names as it does there); the others created
   * through findOrCreateByName one by one.
   */
  async findOrCreateManyByName(
    unit: WriteUnit,
    info: TaxonomyInfo,
    texts: readonly string[],
    ctx: RequestContext,
  ): Promise<Map<string, number>> {
    const names = [...new Set(texts)];
    const found = new Map<string, number>();
    for (let start = 0; start < names.length; start += NAMES_PER_READ) {
      const part = names.slice(start, start + NAMES_PER_READ);
      const rows: Array<{ i: number | string; termId: number | string; language: string }> =
        await unit.manager.query(
          part
            .map(
              () =>
                'SELECT ? AS i, term_id AS termId, language, parent_id AS parentId FROM term_translations ' +
                'WHERE taxonomy = ? AND (name_key = ? OR slug = ?)',
            )
            .join(' UNION ALL ') + ' ORDER BY i, parentId',
          part.flatMap((text, i) => {
            const name = text.trim();
            return [i, info.taxonomy, nameKeyOf(name), toSlug(name, '-')];
          }),
        );
      part.forEach((text, i) => {
        const matches = rows.filter((row) => Number(row.i) === i);
        const match = matches.find((row) => row.language === ctx.language) ?? matches[0];
        if (match) found.set(text, Number(match.termId));
      });
    }
    for (const text of names) {
      if (!found.has(text)) found.set(text, await this.findOrCreateByName(unit, info, text, ctx));
    }
    return found;
  }

  /** A term named (or slugged) `text` in any language, else a new one in the request's language. */
  async findOrCreateByName(
    unit: WriteUnit,
    info: TaxonomyInfo,
    text: string,
    ctx: RequestContext,
  ): Promise<number> {
    const { manager } = unit;
    const name = text.trim();
    const existing = await manager
      .createQueryBuilder(TermTranslation, 's')
      .select(['s.termId', 's.language'])
      .where('s.taxonomy = :taxonomy', { taxonomy: info.taxonomy })
      .andWhere('(s.nameKey = :nameKey OR s.slug = :slug)', {
        nameKey: nameKeyOf(name),
        slug: toSlug(name, '-'),
      })
      .orderBy('s.parentId', 'ASC')
      .getMany();
    const match = existing.find((t) => t.language === ctx.language) ?? existing[0];
    if (match) return match.termId;
    assertCanManage(info, ctx.user);
    // A savepoint, so a concurrent insert of the same name can be retried inside the event's transaction.
    for (let attempt = 1; ; attempt++) {
      const runner = manager.queryRunner;
      const savepoint = `term_${attempt}`;
      if (runner) await runner.query(`SAVEPOINT ${savepoint}`);
      try {
        const id = await insertTerm(manager, info, { language: ctx.language, name, parentId: 0 });
        if (runner) await runner.query(`RELEASE SAVEPOINT ${savepoint}`);
        unit.record([{ kind: termKind(info.taxonomy), id, action: 'created' }]);
        return id;
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
            nameKey: nameKeyOf(name),
          },
          select: { termId: true },
        });
        if (raced) return raced.termId;
      }
    }
  }
}
