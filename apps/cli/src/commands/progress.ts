import { SingleBar, Presets } from 'cli-progress';
import { io } from '../embedded/cli-io';

/** Reports progress of a long command: a bar on a terminal, a plain line now and then otherwise. */
export interface Progress {
  update(done: number): void;
  stop(): void;
}

/** Plain lines at most this often when stderr is not a terminal (logs, CI). */
const PLAIN_EVERY_MS = 5_000;

export function createProgress(label: string, total: number | undefined, unit: string): Progress {
  const stream = io().stderr;
  // a bar only on this process's own terminal, never through the control socket
  if (stream === process.stderr && process.stderr.isTTY) {
    const bar = new SingleBar(
      {
        stream: process.stderr,
        format:
          total === undefined
            ? `${label} {value} ${unit} | {duration_formatted}`
            : `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | ETA {eta_formatted}`,
        hideCursor: true,
        clearOnComplete: false,
      },
      Presets.shades_classic,
    );
    bar.start(total ?? 0, 0);
    return {
      update: (done) => {
        bar.update(done);
      },
      stop: () => {
        bar.stop();
      },
    };
  }
  let last = Date.now();
  return {
    update(done) {
      if (Date.now() - last < PLAIN_EVERY_MS) return;
      last = Date.now();
      stream.write(`${label} ${done}${total === undefined ? '' : `/${total}`} ${unit}\n`);
    },
    stop() {
      /* plain mode prints no closing line; the summary follows */
    },
  };
}
