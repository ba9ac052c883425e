import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Whether a suite that needs `what` runs: with CI=true a missing tool fails the run (CI must
 * not skip), elsewhere the suite is skipped with a notice.
 */
export function requireTool(what: string, present: boolean): boolean {
  if (present) return true;
  if (process.env.CI === 'true')
    throw new Error(`${what} is missing, and CI must run this suite (.ci/run installs it)`);
  console.warn(`NOTICE: ${what} is missing; its suite is skipped.`);
  return false;
}

/** Whether `program` is a file we can run, on PATH or where Debian puts it. */
export function findProgram(program: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin', '/sbin']) {
    const path = join(dir, program);
    if (dir !== '' && existsSync(path)) return path;
  }
  return undefined;
}

/** Runs a command to its end; rejects with its output when it fails. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd ?? repoRoot,
        env: options.env ?? process.env,
        maxBuffer: 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? 900_000,
      },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(
              `${command} ${args.join(' ')} failed: ${error.message}\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
            ),
          );
        else resolve({ stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Whether the Docker engine answers. */
export function dockerRuns(): boolean {
  return (
    findProgram('docker') !== undefined &&
    spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 }).status === 0
  );
}

/** A TCP port free on loopback now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Polls `check` every 250 ms until it returns a value, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
