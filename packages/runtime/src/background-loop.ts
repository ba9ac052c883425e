import type { Logger } from './logger';

/** One piece of work the loop runs: `run` is called every turn and decides itself whether anything is due. */
export interface BackgroundTask {
  name: string;
  run(): Promise<void>;
}

/**
 * Runs tasks one after the other, every `everyMs`, until stopped: the embedded one-process start
 * (no `sync` worker beside it) uses it for the change feed's time-driven events and its
 * retention, and the alerts' delivery for its outbox fill and its digests, a loop each. A task that throws is logged as one line and run again
 * at the next turn. Its timer never keeps the process alive, and no request's deadline reaches it.
 */
export class BackgroundLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly tasks: readonly BackgroundTask[],
    private readonly logger: Logger,
    private readonly everyMs = 15_000,
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** Stops after the turn in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.turn(), ms).unref();
  }

  private async turn(): Promise<void> {
    this.running = (async () => {
      for (const task of this.tasks) {
        if (this.stopped) return;
        try {
          await task.run();
        } catch (error) {
          this.logger.error({ err: error, task: task.name }, 'a background task failed; it runs again at the next turn');
        }
      }
    })();
    await this.running;
    this.running = undefined;
    this.schedule(this.everyMs);
  }
}
