import { signals } from '../../metrics/signals';

/**
 * A job that every instance runs on a timer (the purges, the recurrence
 * horizon): first after `firstDelayMs` (0: at once), then every `intervalMs`.
 * One run at a time: a run still going when the next is due is left to
 * finish. Failures go to `onFailure`, never up; the timers never keep the
 * process alive, and stop() waits for a run in progress (before the database closes).
 */
export class PeriodicTask {
  private timers: NodeJS.Timeout[] = [];
  private running?: Promise<void>;

  constructor(
    private readonly work: () => Promise<unknown>,
    private readonly onFailure: (error: unknown) => void,
    /** The `job` label of its metrics. */
    private readonly name?: string,
  ) {}

  start(firstDelayMs: number, intervalMs: number): void {
    const run = () => {
      this.running ??= this.measured().finally(() => (this.running = undefined));
    };
    if (firstDelayMs === 0) run();
    else this.timers.push(setTimeout(run, firstDelayMs));
    this.timers.push(setInterval(run, intervalMs));
    for (const timer of this.timers) timer.unref();
  }

  private async measured(): Promise<void> {
    const startedMs = Date.now();
    const started = performance.now();
    let failed = false;
    try {
      await this.work();
    } catch (error) {
      failed = true;
      this.onFailure(error);
    }
    if (this.name)
      signals.jobRun(this.name, startedMs, (performance.now() - started) / 1000, failed);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.running;
  }
}

/** An error's message for a log line. */
export function failureText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
