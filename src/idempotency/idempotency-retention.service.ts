import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { IdempotencyStore } from './idempotency.store';

const HOUR_MS = 3_600_000;

/**
 * Deletes idempotency keys older than IDEMPOTENCY_TTL_HOURS (docs/api.md §13),
 * hourly on every instance. Safe with several instances: each batch deletes
 * by ID with the expiry checked again, and deleting a row twice is harmless.
 * A key past its expiry that is still stored counts as new anyway.
 */
@Injectable()
export class IdempotencyRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('IdempotencyRetention');
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly store: IdempotencyStore) {}

  onApplicationBootstrap(): void {
    const run = () => {
      this.purgeExpired().catch((error: Error) =>
        this.logger.warn(`could not purge expired idempotency keys: ${error.message}`),
      );
    };
    this.timers = [setTimeout(run, 90_000), setInterval(run, HOUR_MS)];
    for (const timer of this.timers) timer.unref();
  }

  onModuleDestroy(): void {
    for (const timer of this.timers) clearTimeout(timer);
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
