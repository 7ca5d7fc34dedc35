import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { DataSource, MigrationExecutor } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { MIGRATIONS } from '../../src/database/migrations';

/*
 * The project's migrations on an EMPTY database of the jest project's engine
 * (a temporary SQLite file, or a fresh MySQL/MariaDB database named after
 * TEST_DATABASE_URL's plus `_mig_<pid>`): all up, the schema is there; every
 * one down, one by one, nothing of the project is left; all up again, so
 * every `down` leaves a state its `up` can start from.
 */

const engine = process.env.TEST_ENGINE === 'mysql' ? 'mysql' : 'sqlite';

/** An FTS5 table and its shadow tables. */
const fts5 = (name: string) =>
  ['', '_config', '_data', '_docsize', '_idx'].map((suffix) => `${name}${suffix}`);

/** The searched columns of venues and organizers, by table (ContentFullTextSearch). */
const CONTENT_SEARCH: Record<string, string[]> = {
  organizer_translations: ['name', 'excerpt', 'description'],
  organizers: ['phone', 'email', 'website'],
  venue_translations: ['name', 'excerpt', 'description'],
  venues: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
};

/** The venue and organizer search tables on SQLite (FTS5 tables); none on MySQL (indexes). */
const CONTENT_SEARCH_TABLES =
  engine === 'sqlite'
    ? Object.keys(CONTENT_SEARCH).flatMap((table) => fts5(`ft_${table}_fields`))
    : [];

/** The full-text search tables: FTS5 and its shadow tables on SQLite; none on MySQL (an index). */
const SEARCH_TABLES = [
  ...(engine === 'sqlite' ? fts5('ft_event_translations_text') : []),
  ...CONTENT_SEARCH_TABLES,
];

/** Every table the migrations create (initial schema, data_version, the changes feed, search). */
const TABLES = [
  ...SEARCH_TABLES,
  'change_state',
  'changes',
  'data_version',
  'event_organizers',
  'event_terms',
  'event_translations',
  'events',
  'idempotency_keys',
  'import_runs',
  'imports',
  'organizer_translations',
  'organizers',
  'term_translations',
  'terms',
  'venue_translations',
  'venues',
  'webhook_deliveries',
  'webhook_endpoints',
].sort();

/** Indexes lists and lookups depend on: table → [index, columns, unique]. */
const KEY_INDEXES: Record<string, [string, string[], boolean][]> = {
  changes: [
    ['idx_changes_seq', ['seq'], true],
    ['idx_changes_kind_seq', ['kind', 'seq'], false],
    ['idx_changes_tombstones', ['deleted', 'seq'], false],
  ],
  events: [
    [
      'idx_events_listing',
      ['status', 'start_at', 'id', 'end_at', 'hide_from_listings', 'author_id'],
      false,
    ],
    [
      'idx_events_zones',
      ['status', 'start_at', 'end_at', 'hide_from_listings', 'author_id', 'timezone', 'series_id'],
      false,
    ],
    ['idx_events_start', ['start_at', 'id'], false],
    ['idx_events_end', ['end_at'], false],
    ['idx_events_venue', ['venue_id'], false],
    ['uq_events_external_key', ['external_source', 'external_id'], true],
  ],
  event_translations: [
    ['uq_event_translations_event_language', ['event_id', 'language'], true],
    ['uq_event_translations_slug', ['language', 'slug'], true],
  ],
  idempotency_keys: [['idx_idempotency_keys_expires', ['expires_at'], false]],
  imports: [
    ['uq_imports_feed_source', ['feed_source'], true],
    ['idx_imports_due', ['next_run_ms'], false],
  ],
  import_runs: [['idx_import_runs_import', ['import_id', 'id'], false]],
  event_terms: [['idx_event_terms_term', ['term_id', 'event_id'], false]],
  event_organizers: [['idx_event_organizers_organizer', ['organizer_id', 'event_id'], false]],
  venues: [
    ['idx_venues_status_published', ['status', 'published_at', 'id'], false],
    ['uq_venues_external_key', ['external_source', 'external_id'], true],
  ],
  venue_translations: [['uq_venue_translations_venue_language', ['venue_id', 'language'], true]],
  organizers: [
    ['idx_organizers_status_published', ['status', 'published_at', 'id'], false],
    ['uq_organizers_external_key', ['external_source', 'external_id'], true],
  ],
  organizer_translations: [
    ['uq_organizer_translations_organizer_language', ['organizer_id', 'language'], true],
  ],
  terms: [['idx_terms_taxonomy_parent', ['taxonomy', 'parent_id'], false]],
  term_translations: [
    ['uq_term_translations_term_language', ['term_id', 'language'], true],
    ['uq_term_translations_slug', ['taxonomy', 'language', 'slug'], true],
    ['uq_term_translations_name', ['taxonomy', 'language', 'parent_id', 'name_key'], true],
  ],
  webhook_deliveries: [
    ['idx_webhook_deliveries_message', ['webhook_id'], false],
    ['idx_webhook_deliveries_log', ['endpoint_id', 'id'], false],
    ['idx_webhook_deliveries_due', ['endpoint_id', 'status', 'next_attempt_ms'], false],
  ],
};

interface Target {
  settings: { databaseUrl?: string; sqlitePath: string };
  /** Creates the empty database. */
  create: () => Promise<void>;
  /** Drops it. */
  drop: () => Promise<void>;
  label: string;
}

function mysqlTarget(): Target {
  const base = new URL(process.env.TEST_DATABASE_URL ?? '');
  const baseName = decodeURIComponent(base.pathname.replace(/^\//, ''));
  if (!/test/i.test(baseName)) {
    throw new Error(`TEST_DATABASE_URL must name a database containing "test" (got "${baseName}")`);
  }
  const name = `${baseName}_mig_${process.pid}`;
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  const server = new URL(base.toString());
  server.pathname = '/';
  const onServer = async (sql: string) => {
    const connection = await createConnection({ uri: server.toString() });
    try {
      await connection.query(sql);
    } finally {
      await connection.end();
    }
  };
  return {
    settings: { databaseUrl: url.toString(), sqlitePath: ':memory:' },
    create: async () => {
      await onServer(`DROP DATABASE IF EXISTS \`${name}\``);
      await onServer(
        `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
    },
    drop: () => onServer(`DROP DATABASE IF EXISTS \`${name}\``),
    label: `MySQL database ${name}`,
  };
}

function sqliteTarget(): Target {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-migrations-'));
  return {
    settings: { sqlitePath: join(dir, 'migrations.sqlite') },
    create: () => Promise.resolve(),
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    label: 'a temporary SQLite file',
  };
}

describe(`migrations up, down and up again (${engine})`, () => {
  const target = engine === 'mysql' ? mysqlTarget() : sqliteTarget();
  let dataSource: DataSource;

  /** The tables in the database, without TypeORM's `migrations` bookkeeping. */
  async function projectTables(): Promise<string[]> {
    const rows: { name: string }[] =
      engine === 'mysql'
        ? await dataSource.query(
            'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()',
          )
        : await dataSource.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
          );
    return rows
      .map((row) => row.name)
      .filter((name) => name !== 'migrations')
      .sort();
  }

  async function appliedMigrations(): Promise<string[]> {
    const executed = await new MigrationExecutor(dataSource).getExecutedMigrations();
    return executed.map((migration) => migration.name);
  }

  /** Index name → [columns, unique] of one table, as the database reports it. */
  async function indexesOf(table: string): Promise<Record<string, [string[], boolean]>> {
    const runner = dataSource.createQueryRunner();
    try {
      const loaded = await runner.getTable(table);
      if (!loaded) throw new Error(`table ${table} is missing`);
      return Object.fromEntries(
        loaded.indices.map((index) => [
          index.name ?? '',
          [index.columnNames, index.isUnique] as [string[], boolean],
        ]),
      );
    } finally {
      await runner.release();
    }
  }

  async function columnsOf(table: string): Promise<string[]> {
    const runner = dataSource.createQueryRunner();
    try {
      const loaded = await runner.getTable(table);
      return (loaded?.columns ?? []).map((column) => column.name).sort();
    } finally {
      await runner.release();
    }
  }

  /** The full-text index of event texts: the FULLTEXT index's columns, or the FTS5 table's triggers. */
  async function fullTextIndex(): Promise<string[]> {
    if (engine === 'mysql') {
      const rows: { name: string }[] = await dataSource.query(
        "SELECT COLUMN_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'event_translations' AND INDEX_NAME = 'ft_event_translations_text' AND INDEX_TYPE = 'FULLTEXT' ORDER BY SEQ_IN_INDEX",
      );
      return rows.map((row) => row.name);
    }
    const rows: { name: string }[] = await dataSource.query(
      "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'event_translations' ORDER BY name",
    );
    return rows.map((row) => row.name);
  }
  const FULL_TEXT =
    engine === 'mysql'
      ? ['title', 'excerpt', 'description']
      : [
          'ft_event_translations_text_ad',
          'ft_event_translations_text_ai',
          'ft_event_translations_text_au',
        ];

  /**
   * The venue and organizer full-text indexes, by table: the FULLTEXT
   * indexes' columns (MySQL), or the FTS5 table's triggers (SQLite).
   */
  async function contentFullText(): Promise<Record<string, string[]>> {
    const found: Record<string, string[]> = {};
    for (const table of Object.keys(CONTENT_SEARCH)) {
      const rows: { name: string }[] =
        engine === 'mysql'
          ? await dataSource.query(
              "SELECT COLUMN_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = CONCAT('ft_', TABLE_NAME, '_', COLUMN_NAME) AND INDEX_TYPE = 'FULLTEXT' ORDER BY INDEX_NAME",
              [table],
            )
          : await dataSource.query(
              "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND name LIKE 'ft!_%' ESCAPE '!' ORDER BY name",
              [table],
            );
      found[table] = rows.map((row) => row.name).sort();
    }
    return found;
  }
  const CONTENT_FULL_TEXT = Object.fromEntries(
    Object.entries(CONTENT_SEARCH).map(([table, columns]) => [
      table,
      engine === 'mysql'
        ? [...columns].sort()
        : ['ad', 'ai', 'au'].map((suffix) => `ft_${table}_fields_${suffix}`),
    ]),
  );
  const NO_CONTENT_FULL_TEXT = Object.fromEntries(
    Object.keys(CONTENT_SEARCH).map((table) => [table, []]),
  );

  /** The events table's options (MySQL: `stats_sample_pages=100`, docs/decisions.md; SQLite: none). */
  async function eventTableOptions(): Promise<string> {
    if (engine !== 'mysql') return '';
    const [row]: { options: string }[] = await dataSource.query(
      "SELECT CREATE_OPTIONS AS options FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'events'",
    );
    return row.options;
  }

  async function expectFullSchema(): Promise<void> {
    expect(await eventTableOptions()).toBe(engine === 'mysql' ? 'stats_sample_pages=100' : '');
    expect(await fullTextIndex()).toEqual(FULL_TEXT);
    expect(await contentFullText()).toEqual(CONTENT_FULL_TEXT);
    expect(await projectTables()).toEqual(TABLES);
    for (const [table, indexes] of Object.entries(KEY_INDEXES)) {
      const found = await indexesOf(table);
      for (const [name, columns, unique] of indexes) {
        expect({ table, name, index: found[name] }).toEqual({
          table,
          name,
          index: [columns, unique],
        });
      }
    }
    // Replaced by idx_events_listing.
    expect(Object.keys(await indexesOf('events'))).not.toContain('idx_events_status_start');
    expect(await columnsOf('terms')).toContain('published_count');
    expect(await columnsOf('events')).toContain('import_hash');
    expect(await dataSource.query('SELECT id, version FROM data_version')).toEqual([
      { id: 1, version: expect.anything() },
    ]);
    expect(await appliedMigrations()).toEqual(MIGRATIONS.map((m) => m.name).reverse());
  }

  beforeAll(async () => {
    await target.create();
    dataSource = new DataSource(dataSourceOptions({ ...target.settings, migrationsRun: false }));
    await dataSource.initialize();
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await target.drop();
  });

  it(`starts from an empty database (${target.label})`, async () => {
    expect(await projectTables()).toEqual([]);
  });

  it('runs every migration up and creates the tables and key indexes', async () => {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
    await expectFullSchema();
  });

  it('undoes the migrations one by one, newest first, down to no project table', async () => {
    const undone: string[] = [];
    for (let step = 0; step < MIGRATIONS.length; step++) {
      const before = await appliedMigrations();
      await dataSource.undoLastMigration({ transaction: 'each' });
      const after = await appliedMigrations();
      expect(after).toEqual(before.slice(1));
      undone.push(before[0]);
      if (before[0] === 'EventStatsSample1765900000000') {
        expect(await eventTableOptions()).toBe('');
      }
      if (before[0] === 'ImportHash1765700000000') {
        expect(await columnsOf('events')).not.toContain('import_hash');
      }
      if (before[0] === 'TermPublishedCount1764633600000') {
        expect(await columnsOf('terms')).not.toContain('published_count');
      }
      if (before[0] === 'DataVersion1764547200000') {
        expect(await projectTables()).not.toContain('data_version');
      }
      if (before[0] === 'ContentFullTextSearch1765650000000') {
        expect(await contentFullText()).toEqual(NO_CONTENT_FULL_TEXT);
        for (const table of CONTENT_SEARCH_TABLES)
          expect(await projectTables()).not.toContain(table);
        // The event texts' index is not the content migration's.
        expect(await fullTextIndex()).toEqual(FULL_TEXT);
      }
      if (before[0] === 'FullTextSearch1765400000000') {
        expect(await fullTextIndex()).toEqual([]);
        for (const table of SEARCH_TABLES) expect(await projectTables()).not.toContain(table);
      }
      if (before[0] === 'EventZoneIndex1765200000000') {
        const indexes = await indexesOf('events');
        expect(indexes.idx_events_zones).toBeUndefined();
        expect(indexes.idx_events_listing).toEqual([
          ['status', 'start_at', 'id', 'end_at', 'hide_from_listings', 'author_id'],
          false,
        ]);
      }
      if (before[0] === 'EventListIndex1764460800000') {
        const indexes = await indexesOf('events');
        expect(indexes.idx_events_status_start).toEqual([['status', 'start_at'], false]);
        expect(indexes.idx_events_listing).toBeUndefined();
      }
    }
    expect(undone).toEqual(MIGRATIONS.map((m) => m.name).reverse());
    expect(await appliedMigrations()).toEqual([]);
    expect(await projectTables()).toEqual([]);
    // Nothing left to undo: a no-op, not an error.
    await expect(dataSource.undoLastMigration()).resolves.toBeUndefined();
  });

  it('runs every migration up again on the database the downs left', async () => {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
    await expectFullSchema();
    // And nothing is pending afterwards.
    expect(await dataSource.showMigrations()).toBe(false);
  });

  it('gives the records that exist when the changes migration runs their place in the feed', async () => {
    // Down to and including the changes migration (later ones first).
    while ((await appliedMigrations())[0] !== 'Changes1764813600000') {
      await dataSource.undoLastMigration({ transaction: 'each' });
    }
    await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await projectTables()).not.toContain('changes');
    await dataSource.query(
      "INSERT INTO venues (id, author_id, status, published_at, modified_at) VALUES (4, 1, 'publish', 100, 200), (9, 1, 'draft', 100, 300)",
    );
    await dataSource.query(
      "INSERT INTO terms (id, taxonomy, parent_id, created_at) VALUES (2, 'post_tag', 0, 50), (3, 'tribe_events_cat', 0, 60)",
    );
    await dataSource.runMigrations({ transaction: 'each' });
    const rows = (await dataSource.query(
      'SELECT kind, record_id, seq, deleted, changed_at FROM changes ORDER BY seq',
    )) as Array<Record<string, string | number>>;
    // Sequence numbers start after 1 (the watermark: nothing before the migration can be resumed).
    expect(
      rows.map((r) => [
        r.kind,
        Number(r.record_id),
        Number(r.seq),
        Number(r.deleted),
        Number(r.changed_at),
      ]),
    ).toEqual([
      ['venue', 4, 5, 0, 200],
      ['venue', 9, 10, 0, 300],
      ['tag', 2, 12, 0, 50],
      ['category', 3, 13, 0, 60],
    ]);
    const [state] = (await dataSource.query(
      'SELECT seq, purged_seq, cursor_key FROM change_state WHERE id = 1',
    )) as Array<Record<string, string | number>>;
    expect([Number(state.seq), Number(state.purged_seq)]).toEqual([13, 1]);
    expect(state.cursor_key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('carries each delivery its message over, and back when undone', async () => {
    // Every migration is applied (the test before ran them up again).
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    expect(applied).toEqual([]);
    // Down to the state before the deliveries' migration (later ones undone first).
    while ((await appliedMigrations())[0] !== 'WebhookMessagesInDeliveries1765300000000') {
      await dataSource.undoLastMigration({ transaction: 'each' });
    }
    await dataSource.undoLastMigration({ transaction: 'each' });
    await dataSource.query(
      "INSERT INTO webhook_endpoints (id, url, events, description, enabled, secret, consecutive_failures, created_at, modified_at) VALUES (1, 'https://a.example/', '[\"*\"]', '', 1, 'whsec_a', 0, 1, 1), (2, 'https://b.example/', '[\"*\"]', '', 1, 'whsec_b', 0, 1, 1)",
    );
    await dataSource.query(
      "INSERT INTO webhook_messages (id, message_id, type, body, created_ms) VALUES (7, 'msg_seven', 'tag.created', '{\"n\":7}', 70), (8, 'msg_eight', 'venue.deleted', '{\"n\":8}', 80)",
    );
    await dataSource.query(
      "INSERT INTO webhook_deliveries (id, endpoint_id, message_id, status, attempts, forced, next_attempt_ms, created_ms) VALUES (1, 1, 7, 'delivered', 1, 0, NULL, 70), (2, 2, 7, 'pending', 0, 0, 75, 70), (3, 1, 8, 'failed', 5, 0, NULL, 80)",
    );

    await dataSource.runMigrations({ transaction: 'each' });
    const moved = (await dataSource.query(
      'SELECT id, endpoint_id, webhook_id, type, body, status, created_ms FROM webhook_deliveries ORDER BY id',
    )) as Array<Record<string, string | number>>;
    expect(
      moved.map((r) => ({
        ...r,
        id: Number(r.id),
        endpoint_id: Number(r.endpoint_id),
        created_ms: Number(r.created_ms),
      })),
    ).toEqual([
      {
        id: 1,
        endpoint_id: 1,
        webhook_id: 'msg_seven',
        type: 'tag.created',
        body: '{"n":7}',
        status: 'delivered',
        created_ms: 70,
      },
      {
        id: 2,
        endpoint_id: 2,
        webhook_id: 'msg_seven',
        type: 'tag.created',
        body: '{"n":7}',
        status: 'pending',
        created_ms: 70,
      },
      {
        id: 3,
        endpoint_id: 1,
        webhook_id: 'msg_eight',
        type: 'venue.deleted',
        body: '{"n":8}',
        status: 'failed',
        created_ms: 80,
      },
    ]);

    while ((await appliedMigrations())[0] !== 'WebhookMessagesInDeliveries1765300000000') {
      await dataSource.undoLastMigration({ transaction: 'each' });
    }
    await dataSource.undoLastMigration({ transaction: 'each' });
    const messages = (await dataSource.query(
      'SELECT m.message_id, m.type, m.body, d.id AS delivery FROM webhook_deliveries d ' +
        'JOIN webhook_messages m ON m.id = d.message_id ORDER BY d.id',
    )) as Array<Record<string, string | number>>;
    expect(messages.map((r) => [r.message_id, r.type, r.body, Number(r.delivery)])).toEqual([
      ['msg_seven', 'tag.created', '{"n":7}', 1],
      ['msg_seven', 'tag.created', '{"n":7}', 2],
      ['msg_eight', 'venue.deleted', '{"n":8}', 3],
    ]);
  });
  it('indexes the venues and organizers that exist when the content search migration runs', async () => {
    await dataSource.runMigrations({ transaction: 'each' });
    while ((await appliedMigrations())[0] !== 'ContentFullTextSearch1765650000000') {
      await dataSource.undoLastMigration({ transaction: 'each' });
    }
    await dataSource.undoLastMigration({ transaction: 'each' });
    await dataSource.query(
      "INSERT INTO venues (id, author_id, status, published_at, modified_at, city) VALUES (21, 1, 'publish', 100, 200, 'Zwolle')",
    );
    await dataSource.query(
      "INSERT INTO venue_translations (venue_id, language, slug, name, name_key) VALUES (21, 'nl', 'odeon', 'Odeon', 'odeon')",
    );
    await dataSource.query(
      "INSERT INTO organizers (id, author_id, status, published_at, modified_at, email) VALUES (22, 1, 'publish', 100, 200, 'kassa@stadsfeest.example')",
    );
    await dataSource.runMigrations({ transaction: 'each' });
    const matches = async (table: string, column: string, word: string) => {
      const sql =
        engine === 'mysql'
          ? `SELECT id FROM ${table} WHERE MATCH(${column}) AGAINST (? IN BOOLEAN MODE)`
          : `SELECT rowid AS id FROM ft_${table}_fields WHERE ft_${table}_fields MATCH ?`;
      const query = engine === 'mysql' ? `+${word}*` : `${column} : ("${word}"*)`;
      const rows: Array<{ id: number | string }> = await dataSource.query(sql, [query]);
      return rows.map((row) => Number(row.id));
    };
    expect(await matches('venues', 'city', 'zwol')).toEqual([21]);
    expect(await matches('venue_translations', 'name', 'odeon')).toHaveLength(1);
    expect(await matches('organizers', 'email', 'stadsfeest')).toEqual([22]);
    expect(await matches('organizers', 'email', 'zwolle')).toEqual([]);
  });
});
