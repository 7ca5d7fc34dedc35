import { createHash } from 'node:crypto';

/*
 * Entity tags (RFC 9110 §8.8.3, §13.1) as docs/api.md §11 uses them: strong
 * tags that hash a body's bytes, the tag lists of If-Match / If-None-Match,
 * and the two comparisons.
 */

/** A parsed tag of a list: `W/"x"` is { weak: true, opaque: '"x"' }. */
export interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** `*`, or the tags of a comma list (malformed members dropped, so they never match). */
export type TagList = '*' | EntityTag[];

/** A strong tag of exactly these bytes: the same body gives the same tag on every instance. */
export function entityTag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

const TAG = /^\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/;

/** Parses an If-Match / If-None-Match value; undefined when the header is absent or empty. */
export function parseTagList(header: string | string[] | undefined): TagList | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (value.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  let rest = value;
  while (rest.trim() !== '') {
    const match = TAG.exec(rest);
    if (!match) {
      // Skip a malformed member up to the next comma.
      const comma = rest.indexOf(',');
      if (comma < 0) break;
      rest = rest.slice(comma + 1);
      continue;
    }
    tags.push({ weak: Boolean(match[1]), opaque: match[2] });
    rest = rest.slice(match[0].length);
  }
  return tags;
}

function parseOne(tag: string): EntityTag {
  return tag.startsWith('W/') ? { weak: true, opaque: tag.slice(2) } : { weak: false, opaque: tag };
}

/** If-None-Match: `*`, or one tag equal to ours under weak comparison (W/ ignored). */
export function noneMatchHolds(list: TagList | undefined, current: string): boolean {
  if (list === undefined) return false;
  if (list === '*') return true;
  const ours = parseOne(current).opaque;
  return list.some((tag) => tag.opaque === ours);
}

/** If-Match: `*` (the record exists), or one tag equal to ours under strong comparison. */
export function matchHolds(list: TagList, current: string): boolean {
  if (list === '*') return true;
  const ours = parseOne(current);
  return !ours.weak && list.some((tag) => !tag.weak && tag.opaque === ours.opaque);
}
