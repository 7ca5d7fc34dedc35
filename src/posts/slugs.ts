import type { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import slugify from 'slugify';

export const MAX_SLUG_LENGTH = 200;
/** Room left for a `-NNN` suffix when the slug is taken. */
const STEM_LENGTH = MAX_SLUG_LENGTH - 8;

/**
 * A URL slug from a title or a requested slug: lower case, ASCII letters,
 * digits and dashes, at most 200 characters. Text with nothing left (emoji
 * only, say) gets `fallback`.
 */
export function toSlug(text: string, fallback: string): string {
  // Apostrophes join their word ("children's" → "childrens"), other symbols split words; both
  // as WordPress does, not spelled out ("&" → "and").
  const words = text.replace(/['\u2019]/gu, '').replace(/[^\p{L}\p{N}\s_-]/gu, ' ');
  const slug = slugify(words, { lower: true, strict: true, trim: true })
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/** What `-2`, `-3`, … are appended to: `base`, shortened so the result stays within 200 characters. */
function slugStem(base: string): string {
  return base.length <= STEM_LENGTH ? base : base.slice(0, STEM_LENGTH).replace(/-+$/, '');
}

/**
 * The first free slug among `base`, `<stem>-2`, `<stem>-3`, … given the slugs
 * already taken that are `base` or start with `<stem>-`.
 */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = taken instanceof Set ? (taken as ReadonlySet<string>) : new Set(taken);
  if (!used.has(base)) return base;
  const stem = slugStem(base);
  for (let n = 2; ; n++) {
    const candidate = `${stem}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** LIKE pattern for `stem-…`; slugs hold only a-z, 0-9 and dashes, so nothing needs escaping. */
function slugFamilyPattern(base: string): string {
  return `${slugStem(base)}-%`;
}

/**
 * `base`, or the first of `base-2`, `base-3`, … that no other record uses
 * among the translation rows in `scope` (language; taxonomy for terms).
 * `scope` keys are property names from code, never input.
 */
export async function freeSlug<T extends ObjectLiteral & { slug: string }>(
  manager: EntityManager,
  translation: EntityTarget<T>,
  ownerKey: keyof T & string,
  scope: Record<string, string>,
  base: string,
  selfId: number | undefined,
): Promise<string> {
  const keys = Object.keys(scope);
  const rows: Array<{ slug: string; owner: number | string }> = await manager.query(
    slugProbe(manager, translation, ownerKey, keys, 1),
    [...keys.map((key) => scope[key]), base, slugFamilyPattern(base)],
  );
  return firstFreeSlug(
    base,
    rows.filter((row) => Number(row.owner) !== selfId).map((row) => row.slug),
  );
}

/** Slug bases per probe of freeSlugs: its parameters stay far below every engine's limit. */
const PROBE_BASES = 100;

/**
 * freeSlug for many new records at once, in order: each gets the first slug
 * that neither a stored row in `scope` nor an earlier one of `bases` took,
 * what one freeSlug per record after the other's insert would give, from one
 * probe per PROBE_BASES distinct bases.
 */
export async function freeSlugs<T extends ObjectLiteral & { slug: string }>(
  manager: EntityManager,
  translation: EntityTarget<T>,
  ownerKey: keyof T & string,
  scope: Record<string, string>,
  bases: readonly string[],
): Promise<string[]> {
  const keys = Object.keys(scope);
  const distinct = [...new Set(bases)];
  const taken = new Set<string>();
  for (let i = 0; i < distinct.length; i += PROBE_BASES) {
    const part = distinct.slice(i, i + PROBE_BASES);
    const rows: Array<{ slug: string }> = await manager.query(
      slugProbe(manager, translation, ownerKey, keys, part.length),
      [
        ...keys.map((key) => scope[key]),
        ...part.flatMap((base) => [base, slugFamilyPattern(base)]),
      ],
    );
    for (const row of rows) taken.add(row.slug);
  }
  return bases.map((base) => {
    const slug = firstFreeSlug(base, taken);
    taken.add(slug);
    return slug;
  });
}

// Not write state: the probe's SQL per table, owner key and scope, derived from fixed metadata.
const probes = new WeakMap<EntityMetadata, Map<string, string>>();

/**
 * `SELECT slug, <owner> … WHERE <scope> AND (slug = ? OR slug LIKE ?)`, with
 * `bases` such pairs, built once per shape: plain SQL, as every write of a
 * new record sends it (the query builder cost more CPU than the statement's
 * round trip).
 */
function slugProbe(
  manager: EntityManager,
  translation: EntityTarget<ObjectLiteral>,
  ownerKey: string,
  scopeKeys: string[],
  bases: number,
): string {
  const metadata = manager.connection.getMetadata(translation);
  let byShape = probes.get(metadata);
  if (!byShape) probes.set(metadata, (byShape = new Map()));
  const shape = [ownerKey, ...scopeKeys, bases].join(',');
  let sql = byShape.get(shape);
  if (!sql) {
    const { driver } = manager.connection;
    const column = (property: string) => {
      const found = metadata.findColumnWithPropertyPath(property);
      if (!found) throw new Error(`${metadata.name} has no column ${property}`);
      return driver.escape(found.databaseName);
    };
    const slug = column('slug');
    const scope = scopeKeys.map((key) => `${column(key)} = ? AND `).join('');
    sql =
      `SELECT ${slug} AS slug, ${column(ownerKey)} AS owner FROM ${driver.escape(metadata.tableName)} ` +
      `WHERE ${scope}(${Array.from({ length: bases }, () => `${slug} = ? OR ${slug} LIKE ?`).join(' OR ')})`;
    byShape.set(shape, sql);
  }
  return sql;
}
