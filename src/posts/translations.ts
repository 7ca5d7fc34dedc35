import { ApiError } from '../common/errors/api-error';
import type { Language } from '../i18n/language';

/**
 * Applies a write's translated fields to the record's texts in `language`
 * (docs/api.md §2): an existing translation is updated; a new language needs
 * the title/name (`required`), else 400 rest_missing_callback_param. A write
 * with no translated field adds nothing. Returns the touched translation.
 */
export function applyTranslatedFields<T extends { language: string }>(
  translations: T[],
  language: Language,
  fields: Partial<T>,
  required: { field: keyof T; wireName: string },
  create: () => T,
): T | undefined {
  const given = Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
  if (Object.keys(given).length === 0) return undefined;
  const existing = translations.find((t) => t.language === language);
  if (existing) return Object.assign(existing, given);
  if (given[required.field] === undefined) throw ApiError.missing(required.wireName);
  const created = Object.assign(create(), given, { language });
  translations.push(created);
  return created;
}
