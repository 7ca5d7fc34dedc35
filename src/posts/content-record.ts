import { htmlToText } from '../common/text/html-text';
import type { Language } from '../i18n/language';
import { languagesOf, pickTranslation, translationsOf } from '../i18n/translation';
import type { ContentEntity, ContentNames, ContentTranslation } from './content-kind';
import { ContentRecordDto } from './dto/content-record.dto';
import { externalKeyField } from './external-keys';
import { assignNonEmpty, globalId, imageField, permalink, publicationFields } from './post-fields';

export interface ContentMapOptions {
  language: Language;
  apiUrl: string;
  siteUrl: string;
  siteZone: string;
  names: ContentNames;
  /** Single reads add schema.org JSON-LD. */
  withJsonLd: boolean;
  /** context=edit by a caller who may edit the record: both languages' texts. */
  withTranslations: boolean;
}

/** One language's texts in `translations`, the name under its wire name. */
export type ContentTexts = Record<string, string>;

/** The fields every venue and organizer record has (schema: ContentRecordDto). */
export type ContentRecord = ContentRecordDto;

/**
 * A venue or organizer record in field order (docs/api.md §6): id …
 * rest_url, the name under its wire name, description … image, the kind's
 * own fields (`own`, in order), global_id … languages, then `json_ld` on
 * single reads and `translations` with context=edit. Empty strings are left
 * out, as in the original API.
 */
export function contentRecord<N extends string, O extends object>(
  item: ContentEntity,
  options: ContentMapOptions,
  name: N,
  own: O,
  jsonLd: (parts: ContentParts) => Record<string, unknown>,
): ContentRecord & Record<N, string> & O {
  const parts = contentParts(item, options);
  // Assigned in the documented order, skipping empty strings, without intermediate objects:
  // a list page maps every embedded venue and organizer.
  const record: Record<string, unknown> = {};
  assignNonEmpty(record, parts.head);
  assignNonEmpty(record, { [name]: parts.shown.name });
  assignNonEmpty(record, parts.texts);
  assignNonEmpty(record, own);
  assignNonEmpty(record, parts.tail);
  if (options.withJsonLd) record.json_ld = jsonLd(parts);
  assignNonEmpty(record, parts.translations);
  return record as ContentRecord & Record<N, string> & O;
}

/** The shared pieces of a record, for contentRecord and the kinds' JSON-LD. */
function contentParts<T extends ContentTranslation>(
  item: ContentEntity<T>,
  options: ContentMapOptions,
) {
  const shown = pickTranslation(item.translations, options.language) as T;
  const language = shown.language as Language;
  const url = permalink(options.siteUrl, language, options.names.permalinkPath, shown.slug);
  const id = globalId(options.siteUrl, options.names.titleWire, item.id);
  return {
    shown,
    url,
    head: {
      id: item.id,
      author: String(item.authorId),
      status: item.status,
      ...publicationFields(item, options.siteZone),
      url,
      rest_url: `${options.apiUrl}/${options.names.collection}/${item.id}`,
      // The feed of the record's events: the filter is named like the record's kind.
      ical_url: `${options.apiUrl}/events.ics?${options.names.titleWire}=${item.id}`,
    },
    texts: {
      description: shown.description ?? '',
      excerpt: shown.excerpt ?? '',
      slug: shown.slug,
      image: imageField(item),
    },
    tail: {
      global_id: id,
      global_id_lineage: [id],
      language,
      languages: languagesOf(item.translations),
      external_id: externalKeyField(item),
    },
    translations: options.withTranslations
      ? {
          translations: translationsOf(item.translations, (t): ContentTexts => ({
            [options.names.titleWire]: t.name,
            description: t.description ?? '',
            excerpt: t.excerpt ?? '',
            slug: t.slug,
          })),
        }
      : {},
  };
}

export type ContentParts = ReturnType<typeof contentParts>;

/** The schema.org members every JSON-LD object of a venue or organizer starts with. */
export function jsonLdBase(type: 'Place' | 'Organization', parts: ContentParts) {
  const { shown, texts } = parts;
  return {
    '@context': 'http://schema.org',
    '@type': type,
    name: shown.name,
    description: htmlToText(texts.excerpt || texts.description, 'line'),
    image: texts.image ? (texts.image.url ?? '') : '',
    url: parts.url,
  };
}
