import { ImageDto } from '../common/dto/image.dto';
import { epochToWire, utcWire } from '../common/time/dates';
import type { Language } from '../i18n/language';

/* Record fields every event, venue and organizer shows, and the image input they share. */

/** The publication/modification dates of a record (`date` in the site zone, `*_utc` in UTC). */
export function publicationFields(
  item: { publishedAt: number; modifiedAt: number },
  siteZone: string,
) {
  return {
    date: epochToWire(item.publishedAt, siteZone),
    date_utc: utcWire(item.publishedAt),
    modified: epochToWire(item.modifiedAt, siteZone),
    modified_utc: utcWire(item.modifiedAt),
  };
}

let siteHost = { siteUrl: '', host: '' };

/** Kinds that carry a `global_id`, in the order of their residue (docs/api.md, "Records"). */
const GLOBAL_KINDS = ['event', 'venue', 'organizer'] as const;
export type GlobalKind = (typeof GLOBAL_KINDS)[number];

/**
 * `<host[:port] of PUBLIC_SITE_URL>?id=<n>` with n unique across events,
 * venues and organizers: 3·id − 2, 3·id − 1 and 3·id respectively (each
 * kind numbers its own records; the reference API's IDs are global).
 */
export function globalId(siteUrl: string, kind: GlobalKind, id: number): string {
  // Parsed once: the site URL is a setting, and a list maps every record's ID.
  if (siteHost.siteUrl !== siteUrl) siteHost = { siteUrl, host: new URL(siteUrl).host };
  const n = GLOBAL_KINDS.length * id - (GLOBAL_KINDS.length - 1 - GLOBAL_KINDS.indexOf(kind));
  return `${siteHost.host}?id=${n}`;
}

/** Public permalink: `PUBLIC_SITE_URL/<language>/<path>/<slug>/`. */
export function permalink(siteUrl: string, language: Language, path: string, slug: string): string {
  return `${siteUrl}/${language}/${path}/${encodeURIComponent(slug)}/`;
}

export type ImageOutput = ImageDto;

/** `{id, url, extension}` or `false` (docs/api.md §6). URLs are never fetched. */
export function imageField(item: {
  imageId: number | null;
  imageUrl: string | null;
}): ImageOutput | false {
  if (item.imageId === null && item.imageUrl === null) return false;
  return { id: item.imageId, url: item.imageUrl, extension: extensionOf(item.imageUrl) };
}

function extensionOf(url: string | null): string | null {
  if (!url) return null;
  try {
    const match = /\.([A-Za-z0-9]{1,10})$/.exec(new URL(url).pathname);
    return match ? match[1].toLowerCase() : null;
  } catch {
    return null;
  }
}

/**
 * Image input: an http(s) URL or a positive media ID; `""`, `0`, `false` or
 * `null` clears it. Returns the columns to store, or undefined when invalid.
 */
export function parseImageInput(
  value: unknown,
): { imageId: number | null; imageUrl: string | null } | undefined {
  if (value === '' || value === 0 || value === '0' || value === false || value === null) {
    return { imageId: null, imageUrl: null };
  }
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))) {
    const id = Number(value);
    return Number.isInteger(id) && id >= 1 && id <= 2 ** 31 - 1
      ? { imageId: id, imageUrl: null }
      : undefined;
  }
  if (typeof value === 'string' && value.length <= 2048) {
    try {
      const url = new URL(value);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname)
        return { imageId: null, imageUrl: value };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Empty optional strings are left out of records and JSON-LD (docs/api.md §6). */
export function withoutEmptyStrings<R extends object>(record: R): R {
  return assignNonEmpty({}, record) as R;
}

/** Copies `source`'s members into `target`, skipping empty strings. */
export function assignNonEmpty(
  target: Record<string, unknown>,
  source: object,
): Record<string, unknown> {
  for (const key in source) {
    const value: unknown = source[key as keyof typeof source];
    if (value !== '') target[key] = value;
  }
  return target;
}
