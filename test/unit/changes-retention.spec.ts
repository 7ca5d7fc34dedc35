import type { ConfigType } from '@nestjs/config';
import type { DataSource, EntityManager } from 'typeorm';
import { ChangesRetention } from '../../src/changes/changes-retention.service';
import type { DataVersionService } from '../../src/common/cache/data-version.service';
import type { appConfig } from '../../src/config/app.config';

/*
 * A purge removes old tombstones batch by batch, each in its own transaction.
 * Whatever it removed before a later batch failed is gone for good, so the
 * data version must still be bumped: a feed answer remembered before the
 * purge may no longer be confirmed with a 304 (docs/api.md §11, §12).
 */

/** ChangesRetention's batch size: a full batch makes it read the next. */
const BATCH = 500;
const NOW = 1_800_000_000;
const expired = (count: number, from: number) =>
  Array.from({ length: count }, (_, i) => ({ seq: from + i, changed_at: 0 }));

/** A MySQL data source whose tombstone reads give `batches` in turn and whose transactions fail from `failingBatch` (1-based) on. */
function stubbedDataSource(batches: Array<ReturnType<typeof expired>>, failingBatch: number) {
  let transactions = 0;
  const manager = { query: jest.fn().mockResolvedValue(undefined) } as unknown as EntityManager;
  return {
    options: { type: 'mysql' },
    query: jest.fn().mockImplementation(() => Promise.resolve(batches.shift() ?? [])),
    transaction: jest.fn(async (work: (manager: EntityManager) => Promise<unknown>) => {
      transactions += 1;
      if (transactions >= failingBatch) throw new Error('disk full');
      return work(manager);
    }),
  };
}

function retentionOver(dataSource: ReturnType<typeof stubbedDataSource>) {
  const versions = { bump: jest.fn().mockResolvedValue(undefined) };
  const config = { syncRetentionDays: 30 } as ConfigType<typeof appConfig>;
  const retention = new ChangesRetention(
    dataSource as unknown as DataSource,
    config,
    versions as unknown as DataVersionService,
  );
  return { retention, versions };
}

describe('ChangesRetention.purgeExpired', () => {
  it('bumps the data version for the batches it removed when a later batch fails', async () => {
    const dataSource = stubbedDataSource([expired(BATCH, 1), expired(3, BATCH + 1)], 2);
    const { retention, versions } = retentionOver(dataSource);
    await expect(retention.purgeExpired(NOW)).rejects.toThrow('disk full');
    expect(dataSource.transaction).toHaveBeenCalledTimes(2);
    expect(versions.bump).toHaveBeenCalledTimes(1);
  });

  it('bumps nothing when its first batch fails (nothing was removed)', async () => {
    const dataSource = stubbedDataSource([expired(3, 1)], 1);
    const { retention, versions } = retentionOver(dataSource);
    await expect(retention.purgeExpired(NOW)).rejects.toThrow('disk full');
    expect(versions.bump).not.toHaveBeenCalled();
  });

  it('bumps once after purging every batch', async () => {
    const dataSource = stubbedDataSource([expired(BATCH, 1), expired(3, BATCH + 1)], Infinity);
    const { retention, versions } = retentionOver(dataSource);
    await expect(retention.purgeExpired(NOW)).resolves.toBe(BATCH + 3);
    expect(versions.bump).toHaveBeenCalledTimes(1);
  });
});
