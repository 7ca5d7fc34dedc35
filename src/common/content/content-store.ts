import { DeepPartial, EntityManager, FindOptionsWhere, In, Not } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { otherLanguage, type Language } from '../../i18n/language';
import { ApiError } from '../errors/api-error';
import { recordsWithTranslations } from '../../database/entity-rows';
import type { RequestContext } from '../http/request-context';
import type { ContentEntity, ContentKind, ContentRef, ContentTranslation } from './content-kind';
import { ContentWrite, postColumns, TextsInput } from './content-write';
import { applyTranslatedFields } from './translations';
import { freeSlug, toSlug } from './slugs';

/*
 * Storage of venues and organizers: one record row plus one translation row
 * per language, written together in a transaction.
 */

type AnyKind<E extends ContentEntity<T>, T extends ContentTranslation> = ContentKind<E, T, unknown>;

/** Records with their translations by ID, in two queries side by side (no N+1 for a page). */
export async function loadContent<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: AnyKind<E, T>,
  ids: number[],
): Promise<Map<number, E>> {
  return recordsWithTranslations(manager, kind.entity, ids);
}

/**
 * The record a path names, with its translations, or 404. A slug is looked
 * up in the request's language first, then in the other (contract §2).
 */
export async function findContentOrFail<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: AnyKind<E, T>,
  ref: ContentRef,
  language: Language,
): Promise<E> {
  const id = 'id' in ref ? ref.id : await idBySlug(manager, kind, ref.slug, language);
  const item = id ? (await loadContent(manager, kind, [id])).get(id) : undefined;
  if (!item || item.translations.length === 0) throw new ApiError(kind.errors.notFound);
  return item;
}

async function idBySlug<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: AnyKind<E, T>,
  slug: string,
  language: Language,
): Promise<number> {
  if (slug === '') return 0;
  for (const candidate of [language, otherLanguage(language)]) {
    const row = await manager.findOne(kind.translation, {
      where: { language: candidate, slug } as FindOptionsWhere<T>,
    });
    if (row) return row[kind.ownerKey] as number;
  }
  return 0;
}

/** Throws 400 `<name>: notFound` unless every ID names a record that is not trashed. */
export async function assertUsable<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: AnyKind<E, T>,
  ids: number[],
  name: string,
): Promise<void> {
  if (ids.length === 0) return;
  const found = await manager.count(kind.entity, {
    where: { id: In(ids), status: Not('trash') } as FindOptionsWhere<E>,
  });
  if (found !== new Set(ids).size) throw ApiError.invalid(name, 'notFound');
}

/** Inserts a record and its first translation (in the request's language); returns its ID. */
export async function insertContent<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: AnyKind<E, T>,
  write: ContentWrite<E>,
  ctx: RequestContext,
  siteZone: string,
): Promise<number> {
  const columns = { ...write.columns, ...postColumns(write.post, ctx, siteZone, true) };
  const item = await manager.save(
    kind.entity,
    manager.create(kind.entity, columns as DeepPartial<E>),
  );
  item.translations = [];
  await writeTexts(manager, kind, item, write.texts, ctx.language);
  return item.id;
}

/** Updates the given columns and the texts in `language` of a loaded record. */
export async function updateStoredContent<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: AnyKind<E, T>,
  item: E,
  texts: TextsInput,
  columns: Partial<E>,
  language: Language,
): Promise<void> {
  await writeTexts(manager, kind, item, texts, language);
  await manager.update(kind.entity, item.id, columns as QueryDeepPartialEntity<E>);
}

/**
 * Applies the texts of a write to the record's translation in `language`
 * (adding it when new; then the name is required) and gives it a free slug
 * when the write sent one or the translation is new.
 */
async function writeTexts<E extends ContentEntity<T>, T extends ContentTranslation>(
  manager: EntityManager,
  kind: AnyKind<E, T>,
  item: E,
  texts: TextsInput,
  language: Language,
): Promise<void> {
  const isNew = !item.translations.some((t) => t.language === language);
  const translation = applyTranslatedFields(
    item.translations,
    language,
    {
      name: texts.name,
      nameKey: texts.name?.toLowerCase(),
      description: texts.description,
      excerpt: texts.excerpt,
      slug: texts.slug,
    } as Partial<T>,
    { field: 'name', wireName: kind.nameField },
    () => manager.create(kind.translation, { [kind.ownerKey]: item.id } as DeepPartial<T>),
  );
  if (!translation) return;
  if (texts.slug !== undefined || isNew) {
    const base = toSlug(texts.slug || translation.name, kind.nameField);
    translation.slug = await freeSlug(
      manager,
      kind.translation,
      kind.ownerKey,
      { language },
      base,
      item.id,
    );
  }
  await manager.save(kind.translation, translation);
}
