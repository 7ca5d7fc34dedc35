import type { DataSource } from 'typeorm';

/*
 * The engines' full-text indexes (created by the FullTextSearch migration):
 * InnoDB FULLTEXT on MySQL/MariaDB, an FTS5 table over the same rows on
 * SQLite. Both match a word as the start of a word of the texts, ignoring
 * case and accents.
 */

/** A full-text index over columns of a table's rows. */
export interface TextIndex {
  /** The FULLTEXT index (MySQL), or the FTS5 table whose rowid is the row's `id` (SQLite). */
  name: string;
  /** The table whose rows are indexed. */
  table: string;
  /** The indexed columns, as entity property names (they equal the column names). */
  columns: readonly string[];
}

/** Event titles, excerpts and descriptions (`event_translations`). */
export const EVENT_TEXTS: TextIndex = {
  name: 'ft_event_translations_text',
  table: 'event_translations',
  columns: ['title', 'excerpt', 'description'],
};

export type TextEngine = 'mysql' | 'sqlite';

export function textEngine(dataSource: DataSource): TextEngine {
  return dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
}

/**
 * The engine's query for rows holding every word as the start of one of
 * their words. The words are letters, digits and `_` only
 * (`fullTextWords`), so none is read as an operator.
 */
export function textQuery(engine: TextEngine, words: readonly string[]): string {
  return engine === 'mysql'
    ? words.map((word) => `+${word}*`).join(' ')
    : words.map((word) => `"${word}"*`).join(' ');
}

/**
 * SQL: `SELECT <select>, <score> AS score` over the rows of `index.table`
 * (aliased `t`) that match the query in parameter `param`, found by the
 * full-text index alone; the caller may add conditions on `t` in `where`.
 * `score` is how well the row matches (higher is better) when `scored`,
 * else 0.
 */
export function textRows(
  engine: TextEngine,
  index: TextIndex,
  param: string,
  options: { select: string; where?: string; scored: boolean },
): string {
  const where = options.where ? ` AND ${options.where}` : '';
  if (engine === 'mysql') {
    const columns = index.columns.map((column) => `t.${column}`).join(', ');
    const match = `MATCH(${columns}) AGAINST (:${param} IN BOOLEAN MODE)`;
    const score = options.scored ? match : '0';
    return `SELECT ${options.select}, ${score} AS score FROM ${index.table} t WHERE ${match}${where}`;
  }
  // FTS5's rank is bm25, lower for better matches.
  const score = options.scored ? '-f.rank' : '0';
  return (
    `SELECT ${options.select}, ${score} AS score FROM ${index.name} f ` +
    `INNER JOIN ${index.table} t ON t.id = f.rowid WHERE f.${index.name} MATCH :${param}${where}`
  );
}

/**
 * Full-text indexes over each column of a table on its own, so that a match
 * can be held to one column (venues and organizers, docs/api.md §5.2;
 * created by the ContentFullTextSearch migration). MySQL: one FULLTEXT
 * index per column; SQLite: one FTS5 table over the columns
 * (`ft_<table>_fields`, rowid = the row's `id`), queried with column filters.
 */
export interface FieldTextIndex {
  table: string;
  /** The indexed columns (column names). */
  columns: readonly string[];
}

/**
 * SQL: `SELECT <select>, <score> AS score` over the rows of `index.table`
 * (aliased `t`) of which one column holds every word of `words` at the start
 * of a word; the caller may add `AND …` conditions on `t` in `where`.
 * `score` is how well the row matches (higher is better) when `scored`, else
 * 0. Parameter `param` must hold `fieldQuery(engine, index, words)`. MySQL:
 * one branch per column (UNION ALL), each driven by its own index.
 */
export function fieldRows(
  engine: TextEngine,
  index: FieldTextIndex,
  param: string,
  options: { select: string; where?: string; scored: boolean },
): string {
  const where = options.where ? ` AND ${options.where}` : '';
  if (engine === 'mysql') {
    return index.columns
      .map((column) => {
        const match = `MATCH(t.${column}) AGAINST (:${param} IN BOOLEAN MODE)`;
        const score = options.scored ? match : '0';
        return `SELECT ${options.select}, ${score} AS score FROM ${index.table} t WHERE ${match}${where}`;
      })
      .join(' UNION ALL ');
  }
  const fts = `ft_${index.table}_fields`;
  // FTS5's rank is bm25, lower for better matches.
  const score = options.scored ? '-f.rank' : '0';
  return (
    `SELECT ${options.select}, ${score} AS score FROM ${fts} f ` +
    `INNER JOIN ${index.table} t ON t.id = f.rowid WHERE f.${fts} MATCH :${param}${where}`
  );
}

/** The query `fieldRows` matches: every word, all in one column. */
export function fieldQuery(
  engine: TextEngine,
  index: FieldTextIndex,
  words: readonly string[],
): string {
  const all = textQuery(engine, words);
  if (engine === 'mysql') return all;
  return index.columns.map((column) => `${column} : (${all})`).join(' OR ');
}

/**
 * SQLite: SQL counting the rows that match the query in parameter `param`
 * (`?`), from the FTS5 index alone (no row is read).
 */
export function textMatchCountSql(index: TextIndex): string {
  return `SELECT COUNT(*) AS n FROM ${index.name} WHERE ${index.name} MATCH ?`;
}
