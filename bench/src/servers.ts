import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from '@domain-index/db/clusters';
import { fileURLToPath } from 'node:url';
import { CLI, runCli } from './dataset';

/** A server process the benchmark started. */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Peak resident memory of the process so far (VmHWM), in MiB. */
  peakRssMiB(): number;
  /** What the process printed on stdout. */
  output(): string;
  stop(): Promise<void>;
}

export { freePort } from '@domain-index/db/clusters';

/** The pids of a process's children (the API's workers), from /proc. */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** VmHWM of a process and of its children (the API's workers, each a process), MiB. */
export function peakRss(pid: number): number {
  let kb = 0;
  for (const each of [pid, ...childrenOf(pid)]) {
    try {
      kb += Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${each}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* it has exited */
    }
  }
  return kb / 1024;
}

async function startProcess(command: string[], env: Record<string, string>, ready: string, port: number): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, command, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stdout}`)), 600_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${String(code)}: ${stdout}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    peakRssMiB: () => peakRss(child.pid!),
    output: () => stdout,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The real API: `domain-index serve` (this checkout's, or another's) with the given environment. */
export async function startApi(env: Record<string, string>, cli = CLI): Promise<ServerProcess> {
  const port = await freePort();
  return startProcess([cli, 'serve'], { LOG_LEVEL: 'warn', SHUTDOWN_DELAY_MS: '0', ...env, PORT: String(port) }, 'listening on', port);
}

/** The HTTP ceiling: a bare Express 4 handler answering a fixed body. */
export async function startCeiling(bodyFile: string): Promise<ServerProcess> {
  const port = await freePort();
  const script = fileURLToPath(new URL('./ceiling-server.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url));
  return startProcess([tsx, script], { PORT: String(port), BODY_FILE: bodyFile }, 'ceiling listening', port);
}

/** A key on an unmetered plan, so the benchmark measures serving, not the limiter's 429s. */
export async function benchKey(databaseUrl: string): Promise<string> {
  const { openDatabase, plans } = await import('@domain-index/db');
  const database = await openDatabase({ databaseUrl, maxConnections: 1 });
  try {
    await database.db
      .insert(plans)
      .values({ id: 'bench', requestsPerWindow: 1_000_000_000, windowSeconds: 3600, description: 'benchmark' })
      .onConflictDoNothing();
  } finally {
    await database.close();
  }
  return (await runCli(['keys', 'create', '--plan', 'bench', '--name', 'benchmark'], { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' })).trim();
}
