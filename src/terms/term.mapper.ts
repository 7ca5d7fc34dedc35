import { permalink } from '../posts/post-fields';
import type { Language } from '../i18n/language';
import { languagesOf, pickTranslation, translationsOf } from '../i18n/translation';
import { TermTranslation } from './entities/term-translation.entity';
import { Term } from './entities/term.entity';
import { TaxonomyInfo } from './taxonomies';
import { TermRecordDto, TermTexts } from './dto/term-record.dto';

/** The category/tag record of docs/api.md §6 (its schema is TermRecordDto). */
export type TermRecord = TermRecordDto;

export interface TermMapOptions {
  language: Language;
  apiUrl: string;
  siteUrl: string;
  /** Add both languages' texts (context=edit by a caller who may edit terms). */
  withTranslations: boolean;
}

/**
 * One collator for every comparison: `localeCompare` without locales sorts as it does, but sets
 * one up per call. Built by the first comparison: building it reads ICU's collation data
 * (+3 MB RSS), which an idle service does not need (docs/performance.md, Memory).
 */
let nameOrder: Intl.Collator | undefined;

/** The order of the terms an event embeds: by name as `localeCompare` sorts, then by ID. */
export function compareTermNames(
  a: { name: string; id: number },
  b: { name: string; id: number },
): number {
  nameOrder ??= new Intl.Collator();
  return nameOrder.compare(a.name, b.name) || a.id - b.id;
}

function texts(t: TermTranslation): TermTexts {
  return { name: t.name, description: t.description ?? '', slug: t.slug };
}

export function mapTerm(term: Term, info: TaxonomyInfo, options: TermMapOptions): TermRecord {
  const shown = pickTranslation(term.translations, options.language) as TermTranslation;
  const language = shown.language as Language;
  const collection = `${options.apiUrl}/${info.collection}`;
  return {
    id: term.id,
    count: term.publishedCount,
    description: shown.description ?? '',
    url: permalink(options.siteUrl, language, info.permalinkPath, shown.slug),
    name: shown.name,
    slug: shown.slug,
    taxonomy: term.taxonomy,
    ...(info.hasParent ? { parent: term.parentId } : {}),
    meta: [],
    urls: {
      self: `${collection}/${term.id}`,
      collection,
      ...(term.parentId ? { up: `${collection}/${term.parentId}` } : {}),
    },
    // The feed of the term's events: the filter is named like the collection.
    ical_url: `${options.apiUrl}/events.ics?${info.collection}=${term.id}`,
    language,
    languages: languagesOf(term.translations),
    ...(options.withTranslations ? { translations: translationsOf(term.translations, texts) } : {}),
  };
}
