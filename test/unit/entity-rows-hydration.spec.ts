import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { hydratesAsIs } from '../../src/database/entity-rows';

/*
 * entity-rows skips TypeORM's per-value hydration for columns it would leave
 * unchanged (a page of 1,000 events has ~65,000 values). The claim is checked
 * here against both drivers' own prepareHydratedValue for every such column
 * of every entity, so a new column type or a TypeORM upgrade that starts
 * converting one fails this test instead of changing an answer.
 */
describe('entity rows: values hydrated as they are', () => {
  let sqlite: DataSource;

  beforeAll(async () => {
    sqlite = new DataSource({
      ...dataSourceOptions({ sqlitePath: ':memory:', migrationsRun: false }),
    });
    await sqlite.initialize();
  });

  afterAll(() => sqlite.destroy());

  it('covers the columns that carry most values (ids, texts), not those the drivers convert', () => {
    const columns = sqlite.entityMetadatas.flatMap((metadata) => metadata.columns);
    expect(columns.filter(hydratesAsIs).length).toBeGreaterThan(columns.length / 3);
    const event = (property: string) => {
      const column = sqlite.getMetadata('Event').findColumnWithPropertyPath(property);
      if (!column) throw new Error(`Event has no ${property}`);
      return hydratesAsIs(column);
    };
    expect([event('id'), event('timezone')]).toEqual([true, true]);
    // A boolean, and an instant stored as seconds behind a transformer.
    expect([event('allDay'), event('startAt')]).toEqual([false, false]);
  });

  it('matches both drivers: their hydration returns every sample value unchanged', () => {
    // Not initialized: only its driver's conversions are used.
    const mysql = new DataSource(
      dataSourceOptions({
        databaseUrl: 'mysql://u:p@localhost:3306/db',
        sqlitePath: ':memory:',
        migrationsRun: false,
      }),
    );
    const samples = [null, undefined, 0, 42, -7, '42', '12.50', 'tekst', '', '2026-11-25 10:00:00'];
    const asIs = sqlite.entityMetadatas.flatMap((m) => m.columns.filter(hydratesAsIs));
    for (const driver of [sqlite.driver, mysql.driver]) {
      for (const column of asIs) {
        for (const value of samples) {
          expect({
            column: column.propertyPath,
            value: driver.prepareHydratedValue(value, column),
          }).toEqual({
            column: column.propertyPath,
            value,
          });
        }
      }
    }
  });
});
