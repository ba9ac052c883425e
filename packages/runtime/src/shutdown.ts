import { flushRepeats, type Logger } from './logger';

/** How a long-running process reacts to SIGTERM and SIGINT. */
export interface ShutdownOptions {
  logger: Logger;
  /**
   * From the first signal to the forced exit: the graceful stop must be over by then, or the
   * process exits with code 1 whatever is still open (a stalled database, a Redis client).
   */
  deadlineMs: number;
  /**
   * Whether a second signal exits at once. A cluster worker gets the signal twice by design
   * (the supervisor signals the process group, and the primary signals each worker), so there
   * a repeat is ignored; the primary, which the operator signals, exits.
   */
  secondSignalExits: boolean;
  /** Runs just before a forced exit (the primary kills the workers still running). */
  beforeForcedExit?: () => void;
}

/**
 * Calls `stop` on the first SIGTERM or SIGINT and arms the deadline; a second signal (where
 * `secondSignalExits`) ends the process at once with code 1. `on`, not `once`: a repeated
 * signal must never fall through to Node's default action in the middle of a request.
 */
export function onShutdownSignals(stop: (signal: NodeJS.Signals) => void, options: ShutdownOptions): void {
  let first: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = signal;
      // unref'd: a process whose stop finished exits by itself, before the deadline
      setTimeout(() => {
        forceExit(options, `shutdown deadline reached (${options.deadlineMs} ms after ${signal}): exiting with work unfinished`);
      }, options.deadlineMs).unref();
      stop(signal);
      return;
    }
    if (options.secondSignalExits) forceExit(options, `second ${signal} while stopping: exiting at once`);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** One error line naming what still keeps the process alive, then exit code 1. */
function forceExit(options: ShutdownOptions, message: string): void {
  try {
    options.beforeForcedExit?.();
    const open = process
      .getActiveResourcesInfo()
      .filter((kind) => kind !== 'TTYWrap')
      .reduce<Record<string, number>>((counts, kind) => ({ ...counts, [kind]: (counts[kind] ?? 0) + 1 }), {});
    options.logger.error({ open }, message);
    flushRepeats(options.logger);
  } finally {
    // pino's destination writes what it holds synchronously on exit
    process.exit(1);
  }
}
