import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const TABLE = 'event_translations';
const INDEX = 'ft_event_translations_text';
const COLUMNS = ['title', 'excerpt', 'description'];

/**
 * `search` over the engines' own full-text indexes (docs/api.md §5.1): an
 * InnoDB FULLTEXT index on the event texts on MySQL/MariaDB, kept by the
 * engine; on SQLite an FTS5 table over `event_translations` (external
 * content: it stores no copy of the texts), kept by triggers, so every write
 * path (the service, series writes, the seed, a manual fix) keeps it current.
 *
 * The FULLTEXT index is built without InnoDB's stop word list, so a word
 * such as `whe` finds `when` as on SQLite. A rebuild (TRUNCATE, ALTER) with
 * the list on puts it back; searches leave those words out anyway.
 * SQLite: a later migration that re-creates `event_translations` drops
 * the triggers with it and must create them again. The FTS5 tokenizer keeps
 * `_` inside words and ignores accents, as InnoDB does.
 */
export class FullTextSearch1765400000000 implements MigrationInterface {
  name = 'FullTextSearch1765400000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'mysql') {
      await q.query('SET SESSION innodb_ft_enable_stopword = OFF');
      try {
        await q.createIndex(
          TABLE,
          new TableIndex({ name: INDEX, columnNames: COLUMNS, isFulltext: true }),
        );
      } finally {
        await q.query('SET SESSION innodb_ft_enable_stopword = ON');
      }
      return;
    }
    const list = COLUMNS.join(', ');
    const values = (row: 'new' | 'old') => COLUMNS.map((c) => `${row}.${c}`).join(', ');
    await q.query(
      `CREATE VIRTUAL TABLE ${INDEX} USING fts5(${list}, content='${TABLE}', content_rowid='id', ` +
        `tokenize="unicode61 remove_diacritics 2 tokenchars '_'")`,
    );
    const insert = `INSERT INTO ${INDEX}(rowid, ${list}) VALUES (new.id, ${values('new')});`;
    const remove = `INSERT INTO ${INDEX}(${INDEX}, rowid, ${list}) VALUES ('delete', old.id, ${values('old')});`;
    await q.query(`CREATE TRIGGER ${INDEX}_ai AFTER INSERT ON ${TABLE} BEGIN ${insert} END`);
    await q.query(`CREATE TRIGGER ${INDEX}_ad AFTER DELETE ON ${TABLE} BEGIN ${remove} END`);
    await q.query(
      `CREATE TRIGGER ${INDEX}_au AFTER UPDATE ON ${TABLE} BEGIN ${remove} ${insert} END`,
    );
    // The rows that exist already.
    await q.query(`INSERT INTO ${INDEX}(${INDEX}) VALUES ('rebuild')`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'mysql') {
      await q.dropIndex(TABLE, INDEX);
      // Dropping the index leaves InnoDB's hidden FTS_DOC_ID column; rows written without an
      // index would then be left out of one built again. A rebuild drops it.
      await q.query(`ALTER TABLE ${TABLE} FORCE`);
      return;
    }
    for (const suffix of ['ai', 'ad', 'au'])
      await q.query(`DROP TRIGGER IF EXISTS ${INDEX}_${suffix}`);
    await q.query(`DROP TABLE IF EXISTS ${INDEX}`);
  }
}
