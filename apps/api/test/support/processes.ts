import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Polls `check` every 100 ms until it holds; fails naming `what` after `ms`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 20_000,
): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting until ${what}`);
}

const cli = fileURLToPath(new URL('../../bin/domain-index.js', import.meta.url));

/** A `domain-index serve` process started by a test, with what it has written so far. */
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
  const child = spawn(process.execPath, [cli, 'serve'], {
    detached: options.detached ?? false,
    env: { PATH: process.env.PATH ?? '', ...env },
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
