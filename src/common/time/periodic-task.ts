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
  /** runNow() came while a run was going: one more run follows it. */
  private again = false;
  private started = false;

  constructor(
    private readonly work: () => Promise<unknown>,
    private readonly onFailure: (error: unknown) => void,
    /** The `job` label of its metrics. */
    private readonly name?: string,
  ) {}

  start(firstDelayMs: number, intervalMs: number): void {
    this.started = true;
    const run = () => this.run();
    if (firstDelayMs === 0) run();
    else this.timers.push(setTimeout(run, firstDelayMs));
    this.timers.push(setInterval(run, intervalMs));
    for (const timer of this.timers) timer.unref();
  }

  /**
   * A run now, without waiting for the timer (new work arrived); when one is
   * going, one more follows it. Nothing once stopped, or before start().
   */
  runNow(): void {
    if (!this.started) return;
    if (this.running) this.again = true;
    else this.run();
  }

  private run(): void {
    this.running ??= this.measured().finally(() => {
      this.running = undefined;
      if (this.again && this.started) {
        this.again = false;
        this.run();
      }
    });
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
    this.started = false;
    this.again = false;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.running;
  }
}

/** An error's message for a log line. */
export function failureText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
