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
  private sql?: string;

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

  /** Whether the version of `scope` is read, or being read, already. */
  isRead(scope: object): boolean {
    return this.readFor.has(scope);
  }

  /**
   * The version of `scope` as a read of the caller's gives it: a statement
   * that reads the version with the content it stands for (one snapshot), so
   * the content is never older than the version it is kept under. Ignored
   * when the scope has read its version already.
   */
  provide(scope: object, version: Promise<number>): void {
    if (this.readFor.has(scope)) return;
    // Whoever awaits it sees a failure; nobody awaiting it is no unhandled rejection.
    version.catch(() => undefined);
    this.readFor.set(scope, version);
  }

  /** The SQL expression of the current version, for a statement that reads it with its content. */
  versionSql(): string {
    if (this.sql === undefined) {
      const { driver } = this.dataSource;
      const metadata = this.dataSource.getMetadata(DataVersion);
      const column = (name: string) =>
        driver.escape(metadata.findColumnWithPropertyName(name)!.databaseName);
      this.sql = `(SELECT ${column('version')} FROM ${driver.escape(metadata.tableName)} WHERE ${column('id')} = 1)`;
    }
    return this.sql;
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
