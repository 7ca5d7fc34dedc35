import { nameKeyOf } from '../common/text/name-key';
import { DeepPartial, EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { ErrorKey } from '../common/errors/error-codes';
import { insertRow } from '../database/entity-inserts';
import { plainRowsWhereIn, recordsWithTranslations } from '../database/entity-rows';
import type { PostColumns, PostTranslationColumns } from '../database/post-columns';
import { otherLanguage, type Language } from '../i18n/language';
import { freeSlug, toSlug } from './slugs';
import { applyTranslatedFields } from './translations';

/*
 * Storage every event, venue and organizer shares: one record row plus one
 * translation row per language, found by ID or by slug, texts written
 * together with a free slug. Writers pass their transaction's manager.
 */

/** A record named by a path: `/<kind>/:id` or `/<kind>/by-slug/:slug`. */
export type PostRef = { id: number } | { slug: string };

/** A record with its translations loaded. */
export type PostEntity<T extends PostTranslationColumns> = PostColumns & { translations: T[] };

/** The tables of one kind of post and the names its texts go by. */
export interface PostTable<E extends PostEntity<T>, T extends PostTranslationColumns> {
  entity: new () => E;
  translation: new () => T;
  /** Property of the translation entity that holds the record's ID. */
  ownerKey: keyof T & string;
  /** Translation property of the title (`title` for events, `name` for venues and organizers). */
  titleField: keyof T & string;
  /** Its lower-cased copy, where the kind keeps one for lookups by name. */
  titleKeyField?: keyof T & string;
  /** Wire name of the title (`title`, `venue`, `organizer`): the field a new language requires. */
  titleWire: string;
  /** Slug of a title with no letters or digits left (`event`, `venue`, `organizer`). */
  slugFallback: string;
  /** 404 code of a path that names no record. */
  notFound: ErrorKey;
}

/** The translated fields of a write, the title under its generic name. */
export interface PostTexts {
  title?: string;
  description?: string;
  excerpt?: string;
  slug?: string;
}

/** Records with their translations by ID, in two queries side by side (no N+1 for a page). */
export function loadPosts<E extends PostEntity<T>, T extends PostTranslationColumns>(
  manager: EntityManager,
  table: PostTable<E, T>,
  ids: number[],
): Promise<Map<number, E>> {
  return recordsWithTranslations(manager, table.entity, ids);
}

/**
 * Some properties of records by ID, with some of their translations', as
 * plain rows (plainRowsWhereIn): two plain SELECTs side by side, for pages
 * that only read them. As in loadPosts, a record without texts is left out.
 */
export async function loadPlainPosts<
  E extends PostEntity<T>,
  T extends PostTranslationColumns,
  P extends keyof E & string,
  Q extends keyof T & string,
>(
  manager: EntityManager,
  table: PostTable<E, T>,
  properties: readonly P[],
  textProperties: readonly Q[],
  ids: number[],
): Promise<Map<number, Pick<E, P | 'id'> & { translations: Array<Pick<T, Q>> }>> {
  type Row = Pick<E, P | 'id'> & { translations: Array<Pick<T, Q>> };
  const [records, texts] = await Promise.all([
    plainRowsWhereIn(manager, table.entity, ['id', ...properties] as P[], 'id', ids),
    plainRowsWhereIn(
      manager,
      table.translation,
      [table.ownerKey, ...textProperties],
      table.ownerKey,
      ids,
    ),
  ]);
  const byId = new Map<number, Row>();
  for (const record of records as Row[]) {
    record.translations = [];
    byId.set(record.id, record);
  }
  for (const text of texts) byId.get(Number(text[table.ownerKey]))?.translations.push(text);
  for (const [id, record] of byId) if (record.translations.length === 0) byId.delete(id);
  return byId;
}

/**
 * The ID of the record a path names; 0 when no record has the slug. A slug
 * is looked up in the request's language first, then in the other (docs/api.md §2).
 */
export async function findPostId<E extends PostEntity<T>, T extends PostTranslationColumns>(
  manager: EntityManager,
  table: PostTable<E, T>,
  ref: PostRef,
  language: Language,
): Promise<number> {
  if ('id' in ref) return ref.id;
  // No stored slug ends in a space (toSlug), but MySQL's PAD SPACE collations would let
  // `jazz ` find `jazz`, which SQLite does not: both engines answer 404.
  if (ref.slug === '' || ref.slug.endsWith(' ')) return 0;
  // One plain SELECT on the (language, slug) index for both languages: find()'s query
  // building cost more CPU than the query (docs/performance.md, reads by slug).
  const { select, slug, lang } = slugLookupOf(manager, table);
  const rows: Array<{ owner: number | string; language: string }> = await manager.query(
    `${select} WHERE ${lang} IN (?, ?) AND ${slug} = ?`,
    [language, otherLanguage(language), ref.slug],
  );
  const row = rows.find((r) => r.language === language) ?? rows[0];
  return row ? Number(row.owner) : 0;
}

// Not write state: a cache of SQL text per entity, derived from its fixed metadata.
const slugLookups = new WeakMap<object, { select: string; slug: string; lang: string }>();

/** `SELECT <owner> AS owner, language FROM <translations>` and the columns to filter on, per table. */
function slugLookupOf<E extends PostEntity<T>, T extends PostTranslationColumns>(
  manager: EntityManager,
  table: PostTable<E, T>,
) {
  const metadata = manager.connection.getMetadata(table.translation);
  let lookup = slugLookups.get(metadata);
  if (!lookup) {
    const { driver } = manager.connection;
    const column = (property: string) => {
      const found = metadata.findColumnWithPropertyPath(property);
      if (!found) throw new Error(`${metadata.name} has no column ${property}`);
      return driver.escape(found.databaseName);
    };
    const owner = column(table.ownerKey);
    const lang = column('language');
    lookup = {
      select: `SELECT ${owner} AS owner, ${lang} AS language FROM ${driver.escape(metadata.tableName)}`,
      slug: column('slug'),
      lang,
    };
    slugLookups.set(metadata, lookup);
  }
  return lookup;
}

/** The record a path names, with its translations, or 404. */
export async function findPostOrFail<E extends PostEntity<T>, T extends PostTranslationColumns>(
  manager: EntityManager,
  table: PostTable<E, T>,
  ref: PostRef,
  language: Language,
): Promise<E> {
  const id = await findPostId(manager, table, ref, language);
  const item = id ? (await loadPosts(manager, table, [id])).get(id) : undefined;
  if (!item || item.translations.length === 0) throw new ApiError(table.notFound);
  return item;
}

/**
 * Applies the texts of a write to the record's translation in `language`
 * (adding it when new; then the title is required, docs/api.md §2) and gives it
 * a free slug when the write sent one or the translation is new.
 */
export async function writePostTexts<E extends PostEntity<T>, T extends PostTranslationColumns>(
  manager: EntityManager,
  table: PostTable<E, T>,
  item: Pick<E, 'id' | 'translations'>,
  texts: PostTexts,
  language: Language,
): Promise<void> {
  const existing = item.translations.find((t) => t.language === language);
  const isNew = !existing;
  // The columns as read, to send only what the write moved (save() would read the row again first).
  const before: Partial<T> = existing ? { ...existing } : {};
  const translation = applyPostTexts(manager, table, item, texts, language);
  if (!translation) return;
  if (texts.slug !== undefined || isNew) {
    translation.slug = await freeSlug(
      manager,
      table.translation,
      table.ownerKey,
      { language },
      slugBaseOf(table, translation, texts),
      item.id,
    );
  }
  if (isNew) {
    translation.id = await insertRow(manager, table.translation, translation);
    return;
  }
  const moved = Object.fromEntries(
    Object.entries(translation).filter(
      ([property, value]) => property !== 'id' && value !== before[property as keyof T],
    ),
  ) as Partial<T>;
  if (Object.keys(moved).length > 0)
    await manager.update(table.translation, translation.id, moved as never);
}

/**
 * The write's texts applied to the record's translation in `language`
 * (applyTranslatedFields; a new one is added to `item.translations`, 400
 * without a title), its slug not yet made free. Undefined when no text was sent.
 */
export function applyPostTexts<E extends PostEntity<T>, T extends PostTranslationColumns>(
  manager: EntityManager,
  table: PostTable<E, T>,
  item: Pick<E, 'id' | 'translations'>,
  texts: PostTexts,
  language: Language,
): T | undefined {
  const fields: Record<string, string | undefined> = {
    [table.titleField]: texts.title,
    description: texts.description,
    excerpt: texts.excerpt,
    slug: texts.slug,
  };
  if (table.titleKeyField)
    fields[table.titleKeyField] = texts.title === undefined ? undefined : nameKeyOf(texts.title);
  return applyTranslatedFields(
    item.translations,
    language,
    fields as Partial<T>,
    { field: table.titleField, wireName: table.titleWire },
    () =>
      manager.create(table.translation, {
        [table.ownerKey]: item.id,
        description: null,
        excerpt: null,
      } as DeepPartial<T>),
  );
}

/** The slug a translation asks for before it is made free: the one sent, else its title's. */
export function slugBaseOf<E extends PostEntity<T>, T extends PostTranslationColumns>(
  table: PostTable<E, T>,
  translation: T,
  texts: PostTexts,
): string {
  return toSlug(texts.slug || (translation[table.titleField] as string), table.slugFallback);
}
