import { Language, LANGUAGES } from './language';

export interface HasLanguage {
  language: string;
}

/**
 * Picks the translation in the requested language, falling back to the other
 * one (contract §2). Undefined only when the record has no texts at all.
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
