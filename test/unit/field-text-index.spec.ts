import { fieldQuery, fieldRows, type FieldTextIndex } from '../../src/database/full-text';

const INDEX: FieldTextIndex = { table: 'venues', columns: ['city', 'zip'] };

describe('field full-text queries', () => {
  it('holds every word to one column: column filters on SQLite, the same query per index on MySQL', () => {
    expect(fieldQuery('sqlite', INDEX, ['amster', 'noord'])).toBe(
      'city : ("amster"* "noord"*) OR zip : ("amster"* "noord"*)',
    );
    expect(fieldQuery('mysql', INDEX, ['amster', 'noord'])).toBe('+amster* +noord*');
  });

  it('reads one index per column on MySQL and the FTS5 table on SQLite', () => {
    const mysql = fieldRows('mysql', INDEX, 'q', { select: 't.id AS id', scored: false });
    expect(mysql.split(' UNION ALL ')).toEqual([
      'SELECT t.id AS id, 0 AS score FROM venues t WHERE MATCH(t.city) AGAINST (:q IN BOOLEAN MODE)',
      'SELECT t.id AS id, 0 AS score FROM venues t WHERE MATCH(t.zip) AGAINST (:q IN BOOLEAN MODE)',
    ]);
    const sqlite = fieldRows('sqlite', INDEX, 'q', {
      select: 't.id AS id',
      where: 't.id > 0',
      scored: true,
    });
    expect(sqlite).toBe(
      'SELECT t.id AS id, -f.rank AS score FROM ft_venues_fields f INNER JOIN venues t ' +
        'ON t.id = f.rowid WHERE f.ft_venues_fields MATCH :q AND t.id > 0',
    );
  });
});
