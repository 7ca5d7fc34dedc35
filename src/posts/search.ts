/** `ESCAPE '!'` works the same on MySQL and SQLite (a backslash does not). */
export const LIKE_ESCAPE = "ESCAPE '!'";

/** A LIKE pattern matching `text` anywhere, with its wildcards escaped. */
export function likeContains(text: string): string {
  return `%${text.replace(/[!%_]/g, '!$&')}%`;
}

/** Search input split into words (docs/api.md §5): every word must match. At most 20 words. */
export function searchWords(search: string): string[] {
  return search
    .split(/\s+/)
    .map((w) => w.trim())
    .filter(Boolean)
    .slice(0, 20);
}

/**
 * Shorter words are not in InnoDB's full-text index (`innodb_ft_min_token_size`,
 * 3 on MySQL and MariaDB): they are left out of a search on both engines.
 */
export const MIN_SEARCH_WORD = 3;

/**
 * InnoDB's default stop words of 3 characters or more. An index built or
 * rebuilt (TRUNCATE, ALTER) while they are switched on holds none of them, so
 * they are left out of a search on both engines, whatever the index holds.
 */
const STOP_WORDS = new Set(
  'about are com for from how that the this und was what when where who will with www'.split(' '),
);

/**
 * A word as both full-text indexes cut texts: letters, digits and `_`, after
 * NFC composition (an accent typed as a combining mark joins its letter). A
 * mark left on its own is no word: InnoDB would read it as an empty term
 * matching every row.
 */
const WORD = /[\p{L}\p{N}_]+/gu;

/**
 * The words of a full-text `search` (docs/api.md §5.1): the runs of letters
 * and digits, of at least MIN_SEARCH_WORD characters and not stop words,
 * each once, at most 20. Each must begin a word of the texts.
 */
export function fullTextWords(search: string): string[] {
  const words = new Set<string>();
  for (const [word] of search.normalize('NFC').toLowerCase().matchAll(WORD)) {
    if ([...word].length < MIN_SEARCH_WORD || STOP_WORDS.has(word)) continue;
    words.add(word);
    if (words.size === 20) break;
  }
  return [...words];
}
