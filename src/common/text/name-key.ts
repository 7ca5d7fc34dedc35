/** Characters of every `name_key` column (varchar(200), as the names beside them). */
const NAME_KEY_LENGTH = 200;

/**
 * The case-folded key a name is matched and sorted by (`name_key` of terms,
 * venues and organizers): the lower-cased name, cut to the column's 200
 * characters. Lower-casing can lengthen a name ("İ" becomes "i" and a
 * combining dot), so a name of 200 characters may fold to more. Spaces at
 * its end are dropped.
 */
export function nameKeyOf(name: string): string {
  return withoutEndSpaces(cutToColumn(name.toLowerCase()));
}

function cutToColumn(key: string): string {
  if (key.length <= NAME_KEY_LENGTH) return key;
  // Never half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(key[NAME_KEY_LENGTH - 1])
    ? NAME_KEY_LENGTH - 1
    : NAME_KEY_LENGTH;
  return key.slice(0, end);
}

/**
 * Names come trimmed, but a cut key may end in a space: MariaDB's PAD SPACE
 * collations take `x ` as equal to `x`, SQLite does not (docs/decisions.md).
 */
function withoutEndSpaces(key: string): string {
  let end = key.length;
  while (end > 0 && key[end - 1] === ' ') end--;
  return end === key.length ? key : key.slice(0, end);
}
