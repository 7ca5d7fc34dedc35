import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { rowsWhereIn } from '../../database/entity-rows';
import { DataVersion } from './data-version.entity';

/** Reads and bumps the shared data version (see DataVersion). */
@Injectable()
export class DataVersionService {
  private readonly logger = new Logger('DataVersion');
  // Not write state: one version read shared by everything that reads it for the same request.
  private readonly readFor = new WeakMap<object, Promise<number>>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The current version. With a `scope` (a request's context) it is read once
   * per scope: every cache a request consults then agrees on one version.
   */
  current(scope?: object): Promise<number> {
    if (!scope) return this.read();
    let version = this.readFor.get(scope);
    if (!version) {
      version = this.read();
      this.readFor.set(scope, version);
    }
    return version;
  }

  private async read(): Promise<number> {
    const [row] = await rowsWhereIn(this.dataSource.manager, DataVersion, 'id', [1]);
    return row?.version ?? 0;
  }

  /**
   * After a write that did not bump the version in its own transaction (see
   * ChangeTracker): one atomic increment. A failure only costs cached counts
   * their exactness until they expire.
   */
  async bump(): Promise<void> {
    try {
      await this.dataSource
        .createQueryBuilder()
        .update(DataVersion)
        .set({ version: () => 'version + 1' })
        .where('id = 1')
        .execute();
    } catch (error) {
      this.logger.warn(`could not bump the data version: ${(error as Error).message}`);
    }
  }
}
