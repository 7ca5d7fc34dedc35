import { Language, LANGUAGES } from './language';

export interface HasLanguage {
  language: string;
}

/**
 * Picks the translation in the requested language, falling back to the other
 * one (docs/api.md §2). Undefined only when the record has no texts at all.
 */
export function pickTranslation<T extends HasLanguage>(
  translations: readonly T[],
  language: Language,
): T | undefined {
  return translations.find((t) => t.language === language) ?? translations[0];
}

/** The languages a record has texts in, in the canonical order nl, en. */
export function languagesOf(translations: readonly HasLanguage[]): Language[] {
  return LANGUAGES.filter((l) => translations.some((t) => t.language === l));
}

/** `translations` of context=edit: each language's texts, keyed nl, en in that order. */
export function translationsOf<T extends HasLanguage, R>(
  translations: readonly T[],
  texts: (translation: T) => R,
): Partial<Record<Language, R>> {
  const result: Partial<Record<Language, R>> = {};
  for (const language of LANGUAGES) {
    const translation = translations.find((t) => t.language === language);
    if (translation) result[language] = texts(translation);
  }
  return result;
}
