import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { failureText, PeriodicTask } from '../common/time/periodic-task';
import { appConfig } from '../config/app.config';
import { ImportRunner } from './import-runner';
import { ImportStore } from './import-store';

/** Due imports looked at per poll; the rest wait for the next poll. */
const DUE_PER_POLL = 20;

/**
 * Runs URL imports when they are due (docs/api.md "Imports"), on every
 * instance with IMPORTS_WORKER: every IMPORTS_POLL_MS it looks for due
 * imports and runs them one after another. Each run is claimed first with one
 * conditional UPDATE (ImportStore.claim), so with several instances each due
 * run happens once. A new URL import is run at once on the instance that made
 * it (runSoon), through the same claim.
 */
@Injectable()
export class ImportScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Imports');
  private readonly task = new PeriodicTask(
    () => this.runDue(),
    (error) => this.logger.error(`import schedule failed: ${failureText(error)}`),
    'import_schedule',
  );
  private stopped = false;
  /** The clock due times are compared with (tests move it on). */
  now: () => number = () => Date.now();

  constructor(
    @Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>,
    private readonly store: ImportStore,
    private readonly runner: ImportRunner,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.imports.worker) return;
    this.task.start(this.config.imports.pollMs, this.config.imports.pollMs);
  }

  /** Waits for the run in progress; claims nothing more. */
  beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    return this.task.stop();
  }

  /** Looks for due imports now (a URL import was just made). */
  runSoon(): void {
    this.task.runNow();
  }

  /** Claims and runs the due imports, one after another; how many this instance ran. */
  async runDue(): Promise<number> {
    let ran = 0;
    for (const id of await this.store.dueIds(this.now(), DUE_PER_POLL)) {
      if (this.stopped) break;
      const claimedAtMs = this.now();
      if (!(await this.store.claim(id, claimedAtMs))) continue;
      const source = await this.store.find(id);
      if (!source?.url) continue;
      const cause = source.lastRunMs === null ? 'created' : 'schedule';
      try {
        await this.runner.runFeed(source, cause, claimedAtMs);
        ran++;
      } catch (error) {
        // The claim stays: once stale, a later poll (here or elsewhere) runs it again.
        this.logger.error(`import ${id} failed: ${failureText(error)}`);
      }
    }
    return ran;
  }
}
