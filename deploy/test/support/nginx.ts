import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, repoRoot, waitFor } from './tools';

export interface RunningNginx {
  port: number;
  /** nginx's error log so far */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Starts Debian's nginx on a loopback port with deploy/nginx/domain-index.conf as shipped, but
 * for the upstream servers' and the listener's addresses, in a prefix of its own under `dir`.
 */
export async function startNginx(
  binary: string,
  dir: string,
  upstreamPorts: readonly [number, number],
): Promise<RunningNginx> {
  const port = await freePort();
  const shipped = readFileSync(join(repoRoot, 'deploy/nginx/domain-index.conf'), 'utf8');
  const site = shipped
    .replace('server 127.0.0.1:3001 ', `server 127.0.0.1:${upstreamPorts[0]} `)
    .replace('server 127.0.0.1:3002 ', `server 127.0.0.1:${upstreamPorts[1]} `)
    .replace('listen 80;', `listen 127.0.0.1:${port};`);
  if (site.includes(':3001 ') || !site.includes(`listen 127.0.0.1:${port};`))
    throw new Error('deploy/nginx/domain-index.conf changed shape: update startNginx');
  mkdirSync(join(dir, 'logs'), { recursive: true });
  mkdirSync(join(dir, 'temp'), { recursive: true });
  writeFileSync(join(dir, 'domain-index.conf'), site);
  const errorLog = join(dir, 'logs/error.log');
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'master_process on;',
      'worker_processes 1;',
      process.getuid?.() === 0 ? 'user root;' : '',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${errorLog} info;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      `  client_body_temp_path ${join(dir, 'temp/body')};`,
      `  proxy_temp_path ${join(dir, 'temp/proxy')};`,
      `  fastcgi_temp_path ${join(dir, 'temp/fastcgi')};`,
      `  uwsgi_temp_path ${join(dir, 'temp/uwsgi')};`,
      `  scgi_temp_path ${join(dir, 'temp/scgi')};`,
      `  include ${join(dir, 'domain-index.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(errorLog, '');
  const child: ChildProcess = spawn(
    binary,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', errorLog],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    'nginx listening',
    async () => {
      if (child.exitCode !== null)
        throw new Error(`nginx exited with ${child.exitCode}: ${readFileSync(errorLog, 'utf8')}`);
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
      return true;
    },
    15_000,
  );
  return {
    port,
    errorLog: () => readFileSync(errorLog, 'utf8'),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
    },
  };
}
