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
 * Forgets finished webhook deliveries (delivered or failed, last attempted
 * more than WEBHOOK_RETENTION_DAYS ago) and then messages of that age that no
 * delivery refers to any more (docs/webhooks.md), hourly on every instance.
 * Pending deliveries and their messages are never touched. Safe with several
 * instances: each batch re-checks its conditions in the DELETE, so deleting
 * a row twice, or a row a manual retry made pending again, cannot happen.
 */
@Injectable()
export class WebhookRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookRetention');
  private readonly task = new PeriodicTask(
    () => this.purge(),
    (error) => this.logger.warn(`could not purge old webhook deliveries: ${failureText(error)}`),
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

  /** Deletes what is older than the retention at `now` (ms); returns the counts. */
  async purge(now = Date.now()): Promise<{ deliveries: number; messages: number }> {
    const cutoff = now - this.config.webhooks.retentionDays * 86_400_000;
    const deliveries = await this.inBatches(
      'webhook_deliveries',
      'SELECT id FROM webhook_deliveries WHERE status = ? AND last_attempt_ms < ? LIMIT ?',
      (status) => [status, cutoff],
      ['delivered', 'failed'],
      [
        ["status IN ('delivered', 'failed')", {}],
        ['last_attempt_ms < :cutoff', { cutoff }],
      ],
    );
    const messages = await this.inBatches(
      'webhook_messages',
      'SELECT m.id FROM webhook_messages m WHERE m.created_ms < ? ' +
        'AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id) LIMIT ?',
      () => [cutoff],
      [''],
      [
        [
          'NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = webhook_messages.id)',
          {},
        ],
      ],
    );
    return { deliveries, messages };
  }

  /**
   * Finds up to BATCH IDs per pass (per `key`) and deletes them in one short
   * transaction each, re-checking `conditions`; counts the rows it deleted.
   */
  private async inBatches(
    table: string,
    find: string,
    findParams: (key: string) => unknown[],
    keys: string[],
    conditions: Array<[string, Record<string, unknown>]>,
  ): Promise<number> {
    let total = 0;
    for (const key of keys) {
      for (let batch = 0; batch < MAX_BATCHES; batch++) {
        const rows = (await this.dataSource.query(find, [...findParams(key), BATCH])) as Array<{
          id: number | string;
        }>;
        if (rows.length === 0) break;
        const ids = rows.map((row) => Number(row.id));
        const result = await writeTransaction(this.dataSource, (manager) => {
          const query = manager
            .createQueryBuilder()
            .delete()
            .from(table)
            .where('id IN (:...ids)', { ids });
          for (const [condition, params] of conditions) query.andWhere(condition, params);
          return query.execute();
        });
        total += result.affected ?? 0;
        if (rows.length < BATCH) break;
      }
    }
    return total;
  }
}
