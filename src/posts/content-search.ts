import type { SelectQueryBuilder } from 'typeorm';
import { fieldQuery, fieldRows, FieldTextIndex, textEngine } from '../database/full-text';
import { otherLanguage, type Language } from '../i18n/language';
import type { ContentEntity, ContentKind, ContentTranslation } from './content-kind';

/** The translated columns of venues and organizers that `search` looks in (docs/api.md §5.2). */
const TEXT_COLUMNS = ['name', 'excerpt', 'description'] as const;

/** The alias of the matches joined to a searched list: `id`, and `score` (higher is better). */
export const SEARCH_MATCHES = 'sm';

/**
 * `search` on a venue or organizer list (docs/api.md §5.2): every word
 * begins a word of one and the same field, the fields being the texts the
 * record shows (the requested language's, else the other one's) and the
 * kind's searchable columns. The full-text indexes find the matching rows,
 * one field at a time; the list joins the distinct records found (alias
 * SEARCH_MATCHES) with their best score when `scored`.
 */
export function applyContentSearch<E extends ContentEntity<T>, T extends ContentTranslation>(
  qb: SelectQueryBuilder<E>,
  kind: ContentKind<E, T, unknown, unknown>,
  words: readonly string[],
  language: Language,
  scored: boolean,
): void {
  const engine = textEngine(qb.connection);
  const texts = qb.connection.getMetadata(kind.translation);
  const owner = texts.findColumnsWithPropertyPath(kind.ownerKey)[0].databaseName;
  const post = qb.connection.getMetadata(kind.entity);
  const textIndex: FieldTextIndex = { table: texts.tableName, columns: TEXT_COLUMNS };
  const columnIndex: FieldTextIndex = {
    table: post.tableName,
    columns: kind.searchColumns.map(
      (property) => post.findColumnsWithPropertyPath(property)[0].databaseName,
    ),
  };
  const shown =
    `(t.language = :searchLanguage OR (t.language = :searchFallback AND NOT EXISTS ` +
    `(SELECT 1 FROM ${texts.tableName} sl WHERE sl.${owner} = t.${owner} AND sl.language = :searchLanguage)))`;
  const rows = [
    fieldRows(engine, textIndex, 'searchTexts', {
      select: `t.${owner} AS id`,
      where: shown,
      scored,
    }),
    fieldRows(engine, columnIndex, 'searchColumns', { select: 't.id AS id', scored }),
  ].join(' UNION ALL ');
  qb.innerJoin(
    `(SELECT m.id AS id, MAX(m.score) AS score FROM (${rows}) m GROUP BY m.id)`,
    SEARCH_MATCHES,
    `${SEARCH_MATCHES}.id = p.id`,
  ).setParameters({
    searchLanguage: language,
    searchFallback: otherLanguage(language),
    searchTexts: fieldQuery(engine, textIndex, words),
    searchColumns: fieldQuery(engine, columnIndex, words),
  });
}
