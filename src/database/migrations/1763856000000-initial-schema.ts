import {
  MigrationInterface,
  QueryRunner,
  Table,
  TableColumnOptions,
  TableForeignKey,
  TableIndex,
} from 'typeorm';

/**
 * The whole schema, written with TypeORM's Table API so the same migration
 * runs on MySQL/MariaDB and SQLite.
 */
export class InitialSchema1763856000000 implements MigrationInterface {
  name = 'InitialSchema1763856000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type === 'mysql';
    const longText = mysql ? 'mediumtext' : 'text';
    const id: TableColumnOptions = {
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    };
    const int = (name: string, extra: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type: 'int',
      ...extra,
    });
    const epoch = (name: string): TableColumnOptions => ({ name, type: 'bigint' });
    const str = (name: string, length: number, nullable = true): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
    });
    // Slugs and lower-cased names compare byte for byte on MySQL too (as on SQLite): no accent folding.
    const key = (name: string): TableColumnOptions => ({
      ...str(name, 200, false),
      ...(mysql ? { collation: 'utf8mb4_bin' } : {}),
    });
    const bool = (name: string, value: boolean): TableColumnOptions => ({
      name,
      type: 'boolean',
      default: value ? 1 : 0,
    });
    const text = (name: string, long = false): TableColumnOptions => ({
      name,
      type: long ? longText : 'text',
      isNullable: true,
    });
    const post: TableColumnOptions[] = [
      id,
      int('author_id'),
      str('status', 20, false),
      epoch('published_at'),
      epoch('modified_at'),
      int('image_id', { isNullable: true }),
      str('image_url', 2048),
    ];
    const translation = (owner: string): TableColumnOptions[] => [
      id,
      int(`${owner}_id`),
      str('language', 2, false),
      key('slug'),
      text('description', true),
      text('excerpt'),
    ];
    const cascade = (column: string, table: string) =>
      new TableForeignKey({
        columnNames: [column],
        referencedTableName: table,
        referencedColumnNames: ['id'],
        onDelete: 'CASCADE',
      });
    const index = (name: string, columnNames: string[], isUnique = false) =>
      new TableIndex({ name, columnNames, isUnique });

    await q.createTable(
      new Table({
        name: 'terms',
        columns: [
          id,
          str('taxonomy', 32, false),
          int('parent_id', { default: 0 }),
          epoch('created_at'),
        ],
        indices: [index('idx_terms_taxonomy_parent', ['taxonomy', 'parent_id'])],
      }),
    );
    await q.createTable(
      new Table({
        name: 'term_translations',
        columns: [
          id,
          int('term_id'),
          str('taxonomy', 32, false),
          int('parent_id', { default: 0 }),
          str('language', 2, false),
          str('name', 200, false),
          key('name_key'),
          key('slug'),
          text('description', true),
        ],
        indices: [
          index('uq_term_translations_term_language', ['term_id', 'language'], true),
          index('uq_term_translations_slug', ['taxonomy', 'language', 'slug'], true),
          index(
            'uq_term_translations_name',
            ['taxonomy', 'language', 'parent_id', 'name_key'],
            true,
          ),
        ],
        foreignKeys: [cascade('term_id', 'terms')],
      }),
    );

    await q.createTable(
      new Table({
        name: 'venues',
        columns: [
          ...post,
          ...['address', 'city', 'country', 'province', 'state', 'zip', 'phone'].map((c) =>
            str(c, 255),
          ),
          str('website', 2048),
          str('stateprovince', 255),
          { name: 'geo_lat', type: 'double', isNullable: true },
          { name: 'geo_lng', type: 'double', isNullable: true },
          bool('show_map', true),
          bool('show_map_link', true),
        ],
        indices: [
          index('idx_venues_published', ['published_at', 'id']),
          index('idx_venues_status_published', ['status', 'published_at', 'id']),
          index('idx_venues_author', ['author_id']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'venue_translations',
        columns: [...translation('venue'), str('name', 200, false), key('name_key')],
        indices: [
          index('uq_venue_translations_venue_language', ['venue_id', 'language'], true),
          index('uq_venue_translations_slug', ['language', 'slug'], true),
          index('idx_venue_translations_name', ['name_key']),
        ],
        foreignKeys: [cascade('venue_id', 'venues')],
      }),
    );

    await q.createTable(
      new Table({
        name: 'organizers',
        columns: [...post, str('phone', 255), str('website', 2048), str('email', 254)],
        indices: [
          index('idx_organizers_published', ['published_at', 'id']),
          index('idx_organizers_status_published', ['status', 'published_at', 'id']),
          index('idx_organizers_author', ['author_id']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'organizer_translations',
        columns: [...translation('organizer'), str('name', 200, false), key('name_key')],
        indices: [
          index('uq_organizer_translations_organizer_language', ['organizer_id', 'language'], true),
          index('uq_organizer_translations_slug', ['language', 'slug'], true),
          index('idx_organizer_translations_name', ['name_key']),
        ],
        foreignKeys: [cascade('organizer_id', 'organizers')],
      }),
    );

    await q.createTable(
      new Table({
        name: 'events',
        columns: [
          ...post,
          str('timezone', 64, false),
          str('start_local', 19, false),
          str('end_local', 19, false),
          epoch('start_at'),
          epoch('end_at'),
          bool('all_day', false),
          text('cost'),
          str('website', 2048),
          bool('show_map', true),
          bool('show_map_link', true),
          bool('hide_from_listings', false),
          bool('sticky', false),
          bool('featured', false),
          bool('ticketed', false),
          int('parent_id', { isNullable: true }),
          str('password_hash', 128),
          int('venue_id', { isNullable: true }),
        ],
        indices: [
          index('idx_events_start', ['start_at', 'id']),
          index('idx_events_end', ['end_at']),
          index('idx_events_status_start', ['status', 'start_at']),
          index('idx_events_venue', ['venue_id']),
          index('idx_events_parent', ['parent_id']),
          index('idx_events_author', ['author_id']),
        ],
        foreignKeys: [
          new TableForeignKey({
            columnNames: ['venue_id'],
            referencedTableName: 'venues',
            referencedColumnNames: ['id'],
            onDelete: 'SET NULL',
          }),
          new TableForeignKey({
            columnNames: ['parent_id'],
            referencedTableName: 'events',
            referencedColumnNames: ['id'],
            onDelete: 'SET NULL',
          }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'event_translations',
        columns: [...translation('event'), str('title', 200, false)],
        indices: [
          index('uq_event_translations_event_language', ['event_id', 'language'], true),
          index('uq_event_translations_slug', ['language', 'slug'], true),
        ],
        foreignKeys: [cascade('event_id', 'events')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'event_organizers',
        columns: [
          int('event_id', { isPrimary: true }),
          int('organizer_id', { isPrimary: true }),
          int('position'),
        ],
        indices: [index('idx_event_organizers_organizer', ['organizer_id', 'event_id'])],
        foreignKeys: [cascade('event_id', 'events'), cascade('organizer_id', 'organizers')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'event_terms',
        columns: [int('event_id', { isPrimary: true }), int('term_id', { isPrimary: true })],
        indices: [index('idx_event_terms_term', ['term_id', 'event_id'])],
        foreignKeys: [cascade('event_id', 'events'), cascade('term_id', 'terms')],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'event_terms',
      'event_organizers',
      'event_translations',
      'events',
      'organizer_translations',
      'organizers',
      'venue_translations',
      'venues',
      'term_translations',
      'terms',
    ]) {
      await q.dropTable(table);
    }
  }
}
