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
import { failureText, PeriodicTask } from '../common/time/periodic-task';
import { appConfig } from '../config/app.config';
import { writeTransaction } from '../database/write-transaction';

const HOUR_MS = 3_600_000;
const BATCH = 500;
/** Batches per run and table: a long backlog is worked off over a few runs. */
const MAX_BATCHES = 200;

/**
 * Forgets finished webhook deliveries with their messages (delivered or
 * failed, last attempted more than WEBHOOK_RETENTION_DAYS ago;
 * docs/webhooks.md), hourly on every instance. Pending deliveries are never
 * touched. Safe with several instances: each batch re-checks its conditions
 * in the DELETE, so deleting a row twice, or a row a manual retry made
 * pending again, cannot happen.
 */
@Injectable()
export class WebhookRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookRetention');
  private readonly task = new PeriodicTask(
    () => this.purge(),
    (error) => this.logger.warn(`could not purge old webhook deliveries: ${failureText(error)}`),
    'webhook_retention',
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(90_000, HOUR_MS);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Deletes what is older than the retention at `now` (ms); returns the count. */
  async purge(now = Date.now()): Promise<{ deliveries: number }> {
    const cutoff = now - this.config.webhooks.retentionDays * 86_400_000;
    let deliveries = 0;
    for (const status of ['delivered', 'failed']) {
      deliveries += await this.purgeFinished(status, cutoff);
    }
    return { deliveries };
  }

  /**
   * Finds up to BATCH IDs per pass and deletes them in one short transaction
   * each, re-checking the conditions; counts the rows it deleted.
   */
  private async purgeFinished(status: string, cutoff: number): Promise<number> {
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const rows = (await this.dataSource.query(
        'SELECT id FROM webhook_deliveries WHERE status = ? AND last_attempt_ms < ? LIMIT ?',
        [status, cutoff, BATCH],
      )) as Array<{ id: number | string }>;
      if (rows.length === 0) break;
      const ids = rows.map((row) => Number(row.id));
      const result = await writeTransaction(this.dataSource, (manager) =>
        manager
          .createQueryBuilder()
          .delete()
          .from('webhook_deliveries')
          .where('id IN (:...ids)', { ids })
          .andWhere("status IN ('delivered', 'failed')")
          .andWhere('last_attempt_ms < :cutoff', { cutoff })
          .execute(),
      );
      total += result.affected ?? 0;
      if (rows.length < BATCH) break;
    }
    return total;
  }
}
