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
  ) {}

  start(firstDelayMs: number, intervalMs: number): void {
    const run = () => {
      this.running ??= this.work()
        .then(() => undefined, this.onFailure)
        .finally(() => (this.running = undefined));
    };
    if (firstDelayMs === 0) run();
    else this.timers.push(setTimeout(run, firstDelayMs));
    this.timers.push(setInterval(run, intervalMs));
    for (const timer of this.timers) timer.unref();
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
