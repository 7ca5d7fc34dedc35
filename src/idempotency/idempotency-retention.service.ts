import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { failureText, PeriodicTask } from '../common/time/periodic-task';
import { IdempotencyStore } from './idempotency.store';

const HOUR_MS = 3_600_000;

/**
 * Deletes idempotency keys older than IDEMPOTENCY_TTL_HOURS (docs/api.md §13),
 * hourly on every instance. Safe with several instances: each batch deletes
 * by ID with the expiry checked again, and deleting a row twice is harmless.
 * A key past its expiry that is still stored counts as new anyway.
 */
@Injectable()
export class IdempotencyRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('IdempotencyRetention');
  private readonly task = new PeriodicTask(
    () => this.purgeExpired(),
    (error) => this.logger.warn(`could not purge expired idempotency keys: ${failureText(error)}`),
    'idempotency_retention',
  );

  constructor(private readonly store: IdempotencyStore) {}

  onApplicationBootstrap(): void {
    this.task.start(90_000, HOUR_MS);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Deletes every expired key, in batches; returns how many. */
  async purgeExpired(): Promise<number> {
    let purged = 0;
    for (;;) {
      const batch = await this.store.purgeExpired();
      purged += batch;
      if (batch < 500) return purged;
    }
  }
}
