import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../bin/domain-index.js', import.meta.url));

/** A `domain-index` process started by a test, with what it has written so far. */
export interface ServeProcess {
  child: ChildProcess;
  /** Its stdout alone (the announcement, a demo key). */
  stdout: () => string;
  /** Its stdout and stderr (the log) together, in arrival order. */
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts `domain-index serve` with only PATH and `env` in its environment. `detached` puts it
 * in a process group of its own, as under a supervisor, so a test can signal the whole group.
 */
export function startServe(
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): ServeProcess {
  return startCommand(['serve'], env, options);
}

/** Starts `domain-index <args>` as startServe does: for the long-running `sync`. */
export function startCommand(
  args: string[],
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): ServeProcess {
  const child = spawn(process.execPath, [cli, ...args], {
    detached: options.detached ?? false,
    // No drain delay unless a test asks: tests stop serve often, and no balancer is watching.
    env: { PATH: process.env.PATH ?? '', SHUTDOWN_DELAY_MS: '0', ...env },
  });
  let stdout = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, stdout: () => stdout, output: () => output, exited };
}
