import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real API, started as an operator would: `domain-index serve` on the embedded database. */
export interface LiveApi {
  readonly baseUrl: string;
  /** The demo key `serve` printed on its first start (pro plan). */
  readonly apiKey: string;
  stop(): Promise<void>;
}

const cli = fileURLToPath(new URL('../../../../apps/cli/bin/domain-index.js', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** `env`: more of the server's configuration, e.g. WEBHOOK_ALLOWED_HOSTS for a loopback receiver. */
export async function startLiveApi(env: Readonly<Record<string, string>> = {}): Promise<LiveApi> {
  const dataDir = mkdtempSync(join(tmpdir(), 'di-client-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [cli, 'serve'], {
    env: { PATH: process.env.PATH ?? '', ...env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the API did not start: ${stdout}`)), 90_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the API exited with ${String(code)}: ${stdout}`)));
  });
  const apiKey = /(dix_(?:live|test)_[0-9A-Za-z]+)/.exec(stdout)?.[1];
  if (apiKey === undefined) throw new Error(`no demo key in: ${stdout}`);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    async stop() {
      if (child.exitCode === null) {
        await new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGTERM');
        });
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
