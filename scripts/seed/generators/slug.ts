import { toSlug } from '../../../src/posts/slugs';

/*
 * toSlug (the service's slug rule) word by word: slugify maps each character
 * on its own and joins the words with single dashes, so the slug of a title
 * is the slugs of its words joined by dashes. The generated titles reuse a
 * few hundred words, so remembering them saves a million slugify calls.
 */

const words = new Map<string, string>();

function wordSlug(word: string): string {
  let slug = words.get(word);
  if (slug === undefined) {
    slug = toSlug(word, '');
    words.set(word, slug);
  }
  return slug;
}

/** toSlug(text, fallback) for generated texts. */
export function slugOf(text: string, fallback: string): string {
  // Long texts are cut by toSlug: leave those to it.
  if (text.length > 150) return toSlug(text, fallback);
  let slug = '';
  for (const word of text.split(' ')) {
    const part = wordSlug(word);
    if (part !== '') slug = slug === '' ? part : `${slug}-${part}`;
  }
  return slug === '' ? fallback : slug;
}
