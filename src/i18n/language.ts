export const LANGUAGES = ['nl', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(value: unknown): value is Language {
  return value === 'nl' || value === 'en';
}

export function otherLanguage(language: Language): Language {
  return language === 'nl' ? 'en' : 'nl';
}

/**
 * The highest-weighted Accept-Language tag whose primary subtag is nl or en
 * ("en-GB;q=0.8" counts as en); undefined when none qualifies.
 */
export function languageFromAcceptHeader(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  let best: { language: Language; weight: number; index: number } | undefined;
  header.split(',').forEach((part, index) => {
    const [tag, ...params] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    if (!isLanguage(primary)) return;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    if (!Number.isFinite(weight) || weight <= 0) return;
    if (!best || weight > best.weight) best = { language: primary, weight, index };
  });
  return best?.language;
}

export type LanguageResolution =
  { ok: true; language: Language } | { ok: false; fallback: Language; value: unknown };

/**
 * Resolves a request's language: the explicit parameter, else the
 * Accept-Language header, else the configured default. An explicit value
 * that is not a supported language is reported, with the language to use for
 * the error message.
 */
export function resolveLanguage(input: {
  parameter: unknown;
  acceptLanguage: string | undefined;
  defaultLanguage: Language;
}): LanguageResolution {
  const fromHeader = languageFromAcceptHeader(input.acceptLanguage) ?? input.defaultLanguage;
  if (input.parameter === undefined) return { ok: true, language: fromHeader };
  if (isLanguage(input.parameter)) return { ok: true, language: input.parameter };
  return { ok: false, fallback: fromHeader, value: input.parameter };
}
