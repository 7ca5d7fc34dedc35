import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DataVersionService } from '../common/cache/data-version.service';
import { nowEpoch } from '../common/time/dates';
import { failureText, PeriodicTask } from '../common/time/periodic-task';
import { appConfig } from '../config/app.config';
import { writeTransaction } from '../database/write-transaction';

const HOUR_MS = 3_600_000;
const BATCH = 500;

/**
 * Forgets deletions older than SYNC_RETENTION_DAYS (docs/api.md §12), hourly on
 * every instance. Safe with several instances: each batch raises the
 * watermark (never lowers it) and deletes its tombstones in one transaction,
 * so a reader sees both or neither, and deleting a row twice is harmless.
 */
@Injectable()
export class ChangesRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ChangesRetention');
  private readonly task = new PeriodicTask(
    () => this.purgeExpired(),
    (error) => this.logger.warn(`could not purge old deletions: ${failureText(error)}`),
    'changes_retention',
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly versions: DataVersionService,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(60_000, HOUR_MS);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /**
   * Purges tombstones older than the retention, oldest first, and stops at the
   * first younger one; returns how many. A cursor before the last purged
   * tombstone is then answered 410, so a purge bumps the data version like a
   * write: no feed answer remembered before it may be confirmed with a 304.
   */
  async purgeExpired(now = nowEpoch()): Promise<number> {
    const progress = { purged: 0 };
    try {
      await this.purgeBatches(now, progress);
    } finally {
      // Also when a later batch failed: the batches before it are gone.
      if (progress.purged > 0) await this.versions.bump();
    }
    return progress.purged;
  }

  private async purgeBatches(now: number, progress: { purged: number }): Promise<void> {
    const cutoff = now - this.config.syncRetentionDays * 86_400;
    for (;;) {
      const rows = (await this.dataSource.query(
        'SELECT seq, changed_at FROM changes WHERE deleted = 1 ORDER BY seq LIMIT ?',
        [BATCH],
      )) as Array<{ seq: number | string; changed_at: number | string }>;
      const young = rows.findIndex((row) => Number(row.changed_at) >= cutoff);
      const expired = (young === -1 ? rows : rows.slice(0, young)).map((row) => Number(row.seq));
      if (expired.length === 0) return;
      const top = expired[expired.length - 1];
      await writeTransaction(this.dataSource, async (manager) => {
        await manager.query(
          'UPDATE change_state SET purged_seq = CASE WHEN purged_seq < ? THEN ? ELSE purged_seq END WHERE id = 1',
          [top, top],
        );
        await manager.query(
          `DELETE FROM changes WHERE deleted = 1 AND seq IN (${expired.map(() => '?').join(', ')})`,
          expired,
        );
      });
      progress.purged += expired.length;
      if (young !== -1 || rows.length < BATCH) return;
    }
  }
}
