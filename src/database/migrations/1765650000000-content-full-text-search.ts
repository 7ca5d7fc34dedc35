import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/** The searched columns of each table (docs/api.md §5.2). */
const TABLES: Record<string, string[]> = {
  venue_translations: ['name', 'excerpt', 'description'],
  venues: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  organizer_translations: ['name', 'excerpt', 'description'],
  organizers: ['phone', 'email', 'website'],
};

/**
 * Venue and organizer `search` over the engines' full-text indexes
 * (docs/api.md §5.2). A match is held to one field, so every column is
 * indexed on its own: on MySQL/MariaDB one InnoDB FULLTEXT index per column
 * (`ft_<table>_<column>`, kept by the engine); on SQLite one FTS5 table per
 * table (`ft_<table>_fields`, external content, queried with column
 * filters), kept by triggers like the event texts' (1765400000000).
 *
 * As there, the FULLTEXT indexes are built without InnoDB's stop word list
 * and the FTS5 tokenizer keeps `_` in words and ignores accents. SQLite: a
 * later migration that re-creates one of these tables must create its
 * triggers again.
 */
export class ContentFullTextSearch1765650000000 implements MigrationInterface {
  name = 'ContentFullTextSearch1765650000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'mysql') {
      await q.query('SET SESSION innodb_ft_enable_stopword = OFF');
      try {
        for (const [table, columns] of Object.entries(TABLES)) {
          const indexes = columns.map(
            (column) =>
              new TableIndex({
                name: `ft_${table}_${column}`,
                columnNames: [column],
                isFulltext: true,
              }),
          );
          await q.createIndices(table, indexes);
        }
      } finally {
        await q.query('SET SESSION innodb_ft_enable_stopword = ON');
      }
      return;
    }
    for (const [table, columns] of Object.entries(TABLES)) await createFts(q, table, columns);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'mysql') {
      for (const [table, columns] of Object.entries(TABLES)) {
        for (const column of columns) await q.dropIndex(table, `ft_${table}_${column}`);
        // Dropping the indexes leaves InnoDB's hidden FTS_DOC_ID column; rows written
        // without an index would then be left out of one built again. A rebuild drops it.
        await q.query(`ALTER TABLE ${table} FORCE`);
      }
      return;
    }
    for (const table of Object.keys(TABLES)) {
      const fts = `ft_${table}_fields`;
      for (const suffix of ['ai', 'ad', 'au'])
        await q.query(`DROP TRIGGER IF EXISTS ${fts}_${suffix}`);
      await q.query(`DROP TABLE IF EXISTS ${fts}`);
    }
  }
}

/** An FTS5 table over the columns, its triggers, and the rows that exist already. */
async function createFts(q: QueryRunner, table: string, columns: string[]): Promise<void> {
  const fts = `ft_${table}_fields`;
  const list = columns.join(', ');
  const values = (row: 'new' | 'old') => columns.map((c) => `${row}.${c}`).join(', ');
  await q.query(
    `CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content='${table}', content_rowid='id', ` +
      `tokenize="unicode61 remove_diacritics 2 tokenchars '_'")`,
  );
  const insert = `INSERT INTO ${fts}(rowid, ${list}) VALUES (new.id, ${values('new')});`;
  const remove = `INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.id, ${values('old')});`;
  await q.query(`CREATE TRIGGER ${fts}_ai AFTER INSERT ON ${table} BEGIN ${insert} END`);
  await q.query(`CREATE TRIGGER ${fts}_ad AFTER DELETE ON ${table} BEGIN ${remove} END`);
  // Only writes to the indexed columns touch the index (a publish or a touch does not).
  await q.query(
    `CREATE TRIGGER ${fts}_au AFTER UPDATE OF ${list} ON ${table} BEGIN ${remove} ${insert} END`,
  );
  await q.query(`INSERT INTO ${fts}(${fts}) VALUES ('rebuild')`);
}
