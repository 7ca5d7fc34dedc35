import slugify from 'slugify';

export const MAX_SLUG_LENGTH = 200;
/** Room left for a `-NNN` suffix. */
const BASE_LENGTH = MAX_SLUG_LENGTH - 8;

/**
 * A URL slug from a title or a requested slug: lower case, ASCII letters,
 * digits and dashes. Text with nothing left (emoji only, say) gets `fallback`.
 */
export function toSlug(text: string, fallback: string): string {
  const slug = slugify(text, { lower: true, strict: true, trim: true })
    .slice(0, BASE_LENGTH)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/**
 * The first free slug among `base`, `base-2`, `base-3`, … given the slugs
 * already taken that start with `base`.
 */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** LIKE pattern for `base-…`; slugs hold only a-z, 0-9 and dashes, so nothing needs escaping. */
export function slugFamilyPattern(base: string): string {
  return `${base}-%`;
}
