import 'reflect-metadata';
import { DataSource, type EntityManager } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { insertRow, insertRows } from '../../src/database/entity-inserts';
import { placeholders, shapeOf } from '../../src/database/entity-rows';
import { Event } from '../../src/events/entities/event.entity';

/** The switches of an event row, each optional in an insert. */
const FLAGS = [
  'allDay',
  'showMap',
  'showMapLink',
  'hideFromListings',
  'sticky',
  'featured',
  'ticketed',
  'detached',
] as const;

describe('plain INSERTs from the entity metadata', () => {
  let db: DataSource;
  let statements: string[];
  let manager: EntityManager;

  beforeAll(async () => {
    db = new DataSource(dataSourceOptions({ sqlitePath: ':memory:', migrationsRun: true }));
    await db.initialize();
    // The data source's manager, its statements written down.
    manager = Object.create(db.manager, {
      query: {
        value: (sql: string, params?: unknown[]) => {
          statements.push(sql);
          return db.manager.query(sql, params);
        },
      },
    }) as EntityManager;
  });
  afterAll(() => db.destroy());
  beforeEach(() => {
    statements = [];
  });

  const event = (id: number, columns: Partial<Event> = {}): Partial<Event> => ({
    id,
    authorId: 2,
    status: 'publish',
    publishedAt: 1_700_000_000,
    modifiedAt: 1_700_000_000,
    timezone: 'UTC',
    startLocal: '2030-05-01 20:00:00',
    endLocal: '2030-05-01 23:00:00',
    startAt: 1_903_975_200,
    endAt: 1_903_986_000,
    ...columns,
  });

  it('writes the properties given, booleans as 1 and 0, the rest at their defaults', async () => {
    const id = await insertRow(manager, Event, event(1, { sticky: true, website: undefined }));
    expect(id).toBe(1);
    await insertRows(
      manager,
      Event,
      [
        'id',
        'authorId',
        'status',
        'publishedAt',
        'modifiedAt',
        'timezone',
        'startLocal',
        'endLocal',
        'startAt',
        'endAt',
        'featured',
      ],
      [event(2, { featured: true }), event(3, { featured: false })],
    );
    const rows = await db.query(
      'SELECT id, sticky, featured, show_map, website FROM events ORDER BY id',
    );
    expect(rows).toEqual([
      { id: 1, sticky: 1, featured: 0, show_map: 1, website: null },
      { id: 2, sticky: 0, featured: 1, show_map: 1, website: null },
      { id: 3, sticky: 0, featured: 0, show_map: 1, website: null },
    ]);
    expect(statements[0]).toBe(
      'INSERT INTO "events" ("id", "author_id", "status", "published_at", "modified_at", "timezone", ' +
        '"start_local", "end_local", "start_at", "end_at", "sticky") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    expect(statements[1]).toMatch(/ VALUES \((\?, ){10}\?\), \((\?, ){10}\?\)$/);
  });

  it('keeps a bounded number of statement shapes whatever properties the writes name', async () => {
    const shapes = shapeOf(manager, Event).inserts;
    shapes.clear();
    // 300 different lists of properties: the base columns, a subset of the switches, a website from 256 on.
    for (let n = 0; n < 300; n++) {
      const flags = FLAGS.filter((_, bit) => (n >> bit) & 1);
      const columns: Partial<Event> = Object.fromEntries(flags.map((flag) => [flag, true]));
      if (n >= 256) columns.website = `https://example.org/${n}`;
      await insertRow(manager, Event, event(100 + n, columns));
      expect(shapes.size).toBeLessThanOrEqual(256);
    }
    expect(new Set(statements).size).toBe(300);
    expect(shapes.size).toBe(44);
    const [{ count }] = await db.query('SELECT COUNT(*) AS count FROM events WHERE id >= 100');
    expect(count).toBe(300);
  });
});

describe('placeholders', () => {
  it('is n question marks', () => {
    expect(placeholders(0)).toBe('');
    expect(placeholders(1)).toBe('?');
    expect(placeholders(3)).toBe('?, ?, ?');
  });
});
