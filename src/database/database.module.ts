import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { appConfig } from '../config/app.config';
import { dataSourceOptions } from './data-source-options';
import { ReadRoutingDataSource } from './read-routing';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: ConfigType<typeof appConfig>) => ({
        // A query cannot usefully outlive the request that asked for it.
        ...dataSourceOptions({ ...config, queryTimeoutMs: config.requestTimeoutMs }),
        // Fail fast at start-up rather than retrying for minutes.
        retryAttempts: 2,
        retryDelay: 1000,
      }),
      dataSourceFactory: async (options) => createDataSource(options as DataSourceOptions),
    }),
  ],
})
export class DatabaseModule {}

/**
 * On MySQL, start-up migrations run first on a connection of their own without
 * the per-query timeout (an index build on a large table may take minutes);
 * the service's data source then starts with the timeout and no migrations.
 */
async function createDataSource(options: DataSourceOptions): Promise<DataSource> {
  if (options.type !== 'mysql' || !options.migrationsRun || !options.enableQueryTimeout) {
    return new ReadRoutingDataSource(options);
  }
  const migrator = new DataSource({
    ...options,
    enableQueryTimeout: false,
    poolSize: 1,
    extra: { ...options.extra, connectionLimit: 1 },
  });
  await migrator.initialize();
  await migrator.destroy();
  return new ReadRoutingDataSource({ ...options, migrationsRun: false });
}
