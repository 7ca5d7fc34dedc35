import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { plainRowsWhereIn, rowsWhereIn } from '../../src/database/entity-rows';
import { EventOrganizer } from '../../src/events/entities/event-organizer.entity';
import { EventTranslation } from '../../src/events/entities/event-translation.entity';
import { Event } from '../../src/events/entities/event.entity';
import { DataVersion } from '../../src/common/cache/data-version.entity';
import { loadEventRows, loadEvents } from '../../src/events/event-store';
import { EVENT_RECORD_COLUMNS, mapEvent } from '../../src/events/event.mapper';

/*
 * The changes feed maps its events from plain rows of the columns records
 * show (loadEventRows), not from entities (loadEvents): the same values,
 * converted the same way, so the same record bytes. Checked on SQLite here;
 * the feed's e2e tests compare its records with single reads on both engines.
 */
describe('plain rows: what records are mapped from, without entities', () => {
  let db: DataSource;

  beforeAll(async () => {
    db = new DataSource(dataSourceOptions({ sqlitePath: ':memory:', migrationsRun: true }));
    await db.initialize();
    const event = (id: number, columns: Partial<Event>) => ({
      id,
      authorId: 2,
      status: 'publish' as const,
      publishedAt: 1_700_000_000 + id,
      modifiedAt: 1_700_000_100 + id,
      timezone: 'Europe/Amsterdam',
      startLocal: '2030-05-01 20:00:00',
      endLocal: '2030-05-01 23:00:00',
      startAt: 1_903_975_200,
      endAt: 1_903_986_000,
      ...columns,
    });
    await db.manager.insert(Event, [
      event(1, {}),
      event(2, {
        allDay: true,
        showMap: false,
        sticky: true,
        featured: true,
        ticketed: true,
        hideFromListings: true,
        cost: '["€ 7,50"]',
        website: 'https://example.org/',
        imageUrl: 'https://images.example.org/2.jpg',
        passwordHash: 'x'.repeat(64),
        parentId: 1,
        status: 'draft',
        timezone: 'UTC+2',
      }),
      // No texts: not a record to show.
      event(3, {}),
    ]);
    const text = (eventId: number, language: string, title: string) => ({
      eventId,
      language,
      title,
      slug: `${title.toLowerCase()}-${eventId}`,
      description: language === 'nl' ? '<p>Tekst</p>' : null,
      excerpt: null,
    });
    await db.manager.insert(EventTranslation, [
      text(1, 'nl', 'Concert'),
      text(1, 'en', 'Gig'),
      text(2, 'en', 'Only'),
    ]);
    // Link rows only: the organizers themselves do not matter here.
    await db.query('PRAGMA foreign_keys = OFF');
    await db.manager.insert(EventOrganizer, [
      { eventId: 1, organizerId: 7, position: 1 },
      { eventId: 1, organizerId: 5, position: 0 },
    ]);
  });

  afterAll(() => db?.destroy());

  it('holds the values of the entities, converted as TypeORM converts them', async () => {
    const [rows, entities] = await Promise.all([
      loadEventRows(db.manager, [1, 2, 3]),
      loadEvents(db.manager, [1, 2, 3]),
    ]);
    expect([...rows.keys()]).toEqual([...entities.keys()]);
    expect([...rows.keys()]).toEqual([1, 2]);
    for (const [id, entity] of entities) {
      const row = rows.get(id);
      const picked = Object.fromEntries(
        ['id', ...EVENT_RECORD_COLUMNS].map((property) => [
          property,
          entity[property as keyof Event],
        ]),
      );
      const { translations, ...columns } = row as NonNullable<typeof row>;
      expect(columns).toStrictEqual(picked);
      const byLanguage = (a: Record<string, unknown>, b: Record<string, unknown>) =>
        String(a.language).localeCompare(String(b.language));
      expect(
        (translations as Array<Record<string, unknown>>)
          .map(({ eventId: _, ...texts }) => texts)
          .sort(byLanguage),
      ).toEqual(
        entity.translations
          .map(({ language, title, description, excerpt, slug }) => ({
            language,
            title,
            description,
            excerpt,
            slug,
          }))
          .sort(byLanguage),
      );
    }
  });

  it('maps to the same record bytes as the entities', async () => {
    const [rows, entities] = await Promise.all([
      loadEventRows(db.manager, [1, 2]),
      loadEvents(db.manager, [1, 2]),
    ]);
    const links = { categories: [], tags: [], organizers: [] };
    for (const language of ['nl', 'en'] as const) {
      for (const blanked of [false, true]) {
        const options = {
          language,
          apiUrl: 'http://localhost/calendar/events/v1',
          siteUrl: 'http://localhost',
          siteZone: 'Europe/Amsterdam',
          withJsonLd: false,
          withTranslations: false,
          blanked,
        };
        for (const id of [1, 2]) {
          expect(JSON.stringify(mapEvent(rows.get(id)!, links, options))).toBe(
            JSON.stringify(mapEvent(entities.get(id)!, links, options)),
          );
        }
      }
    }
  });

  it('reads link rows in the asked order, only the properties asked for', async () => {
    await expect(
      plainRowsWhereIn(db.manager, EventOrganizer, ['organizerId'], 'eventId', [1, 1], 'position'),
    ).resolves.toEqual([{ organizerId: 5 }, { organizerId: 7 }]);
    await expect(
      plainRowsWhereIn(db.manager, EventOrganizer, ['eventId'], 'eventId', []),
    ).resolves.toEqual([]);
  });

  it('reads whole entities as find() does (rowsWhereIn: every column of the plain read)', async () => {
    const [rows, found] = await Promise.all([
      rowsWhereIn(db.manager, Event, 'id', [2, 1, 2], 'id'),
      db.manager.find(Event, { where: [{ id: 1 }, { id: 2 }], order: { id: 'ASC' } }),
    ]);
    expect(rows.every((row) => row instanceof Event)).toBe(true);
    expect(rows).toEqual(found);
    // A column behind a transformer (bigint as a number).
    await expect(rowsWhereIn(db.manager, DataVersion, 'id', [1])).resolves.toEqual([
      { id: 1, version: 0 },
    ]);
    await expect(rowsWhereIn(db.manager, Event, 'id', [])).resolves.toEqual([]);
  });
});
