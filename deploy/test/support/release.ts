import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort, repoRoot, run, waitFor } from './tools';

/** The checkout's command line (tsx compiles on load); the units run the release directory (release-dir.test.ts). */
export const cliEntry = join(repoRoot, 'apps/cli/bin/domain-index.js');

/** The machine's PostgreSQL the suites may use (TEST_DATABASE_URL), or undefined. */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL;

/** A URL naming database `name` on TEST_DATABASE_URL's server. */
export function databaseUrl(name: string): string {
  const url = new URL(testDatabaseUrl!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs an SQL script on the server's database `name` (the admin database by default). */
export async function psql(sql: string, name?: string): Promise<string> {
  const url = name === undefined ? testDatabaseUrl! : databaseUrl(name);
  return (
    await run('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', url], { input: sql })
  ).stdout.trim();
}

/** Creates an empty database of this run (`di_test_deploy_<pid>_<what>`); returns its name. */
export async function createDatabase(what: string): Promise<string> {
  const name = `di_test_deploy_${process.pid}_${what}`;
  await psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE); CREATE DATABASE ${name};`);
  return name;
}

export async function dropDatabase(name: string): Promise<void> {
  await psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE);`);
}

/** Runs a domain-index command to its end. */
export async function cli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return (
    await run(process.execPath, [cliEntry, ...args], {
      env: { ...process.env, LOG_FORMAT: 'json', ...env },
    })
  ).stdout.trim();
}

export interface RunningServe {
  port: number;
  process: ChildProcess;
  /** resolves with the exit code */
  exited: Promise<number | null>;
  log(): string;
}

/** Starts `domain-index serve` on a free loopback port and waits for /readyz. */
export async function startServe(env: NodeJS.ProcessEnv): Promise<RunningServe> {
  const port = await freePort();
  const child = spawn(process.execPath, [cliEntry, 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  await waitFor(
    `serve on ${port} ready`,
    async () => {
      if (child.exitCode !== null)
        throw new Error(`serve exited with ${child.exitCode}: ${output}`);
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      return response.status === 200 ? true : undefined;
    },
    120_000,
  );
  return { port, process: child, exited, log: () => output };
}
