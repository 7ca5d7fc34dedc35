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
