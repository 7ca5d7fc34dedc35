import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

/** For the TypeORM CLI and scripts: the same settings the service uses. */
export default new DataSource(
  dataSourceOptions({
    databaseUrl: process.env.DATABASE_URL || undefined,
    sqlitePath: process.env.SQLITE_PATH || './data/calendar.sqlite',
    migrationsRun: false,
  }),
);
