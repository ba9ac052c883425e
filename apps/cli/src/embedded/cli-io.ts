import { AsyncLocalStorage } from 'node:async_hooks';
import type { Readable, Writable } from 'node:stream';

/**
 * Where a command's output goes, where its input comes from and how it ends. A command run
 * from a shell has the process's own; a command that the running embedded server runs for
 * another `domain-index` process (control-server.ts) has that process's, carried over the
 * control socket, while the server's own logs keep going to the server's stdout.
 */
export interface CliIo {
  readonly stdout: Pick<Writable, 'write'> & { readonly isTTY?: boolean };
  readonly stderr: Pick<Writable, 'write'> & { readonly isTTY?: boolean };
  readonly stdin: Readable;
  /** The directory relative paths are read from: the caller's. */
  readonly cwd: string;
  /** Sets the command's exit code (the process's, or the one sent back to the caller). */
  setExitCode(code: number): void;
  /** True when the embedded server runs the command for another process. */
  readonly inServer: boolean;
}

const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  get cwd() {
    return process.cwd();
  },
  setExitCode(code) {
    process.exitCode = code;
  },
  inServer: false,
};

const current = new AsyncLocalStorage<CliIo>();

/** The io of the command being run: the process's unless the server runs it for another. */
export function io(): CliIo {
  return current.getStore() ?? processIo;
}

/** Runs a command with the given io: everything it awaits sees it through io(). */
export function runWithIo<T>(commandIo: CliIo, run: () => Promise<T>): Promise<T> {
  return current.run(commandIo, run);
}
