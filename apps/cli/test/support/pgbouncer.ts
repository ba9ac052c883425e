import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@domain-index/db/clusters';
import { until } from '@domain-index/test-support/waiting';

const run = promisify(execFile);

/** Debian's PgBouncer, or PGBOUNCER_BIN. */
function pgbouncerBinary(): string | undefined {
  const fromEnv = process.env.PGBOUNCER_BIN;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path));
}

let noticeShown = false;

/** Whether the PgBouncer suites can run here; in CI a missing PgBouncer is an error, never a skip. */
export function pgbouncerSkipped(): boolean {
  if (pgbouncerBinary() !== undefined) return false;
  if (process.env.CI === 'true') throw new Error('CI=true but pgbouncer was not found: install Debian\'s pgbouncer package (or set PGBOUNCER_BIN)');
  if (!noticeShown) {
    noticeShown = true;
    console.warn('NOTICE: pgbouncer not found; the connection-pooler suites are skipped (apt-get install pgbouncer).');
  }
  return true;
}

/** A PgBouncer of a test's own on a free loopback port, in front of one PostgreSQL server. */
export interface PgBouncer {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`, plus `?pgbouncer=true` when `declared`. */
  url(database: string, declared?: boolean): string;
  /** Runs an admin-console command (PAUSE, RESUME, SHOW POOLS ...) and returns psql's output. */
  admin(command: string): Promise<string>;
  /** PgBouncer's own log so far. */
  log(): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The PostgreSQL server it pools. */
  target: { host: string; port: number };
  mode: 'transaction' | 'session';
  /** Startup parameters it accepts and drops (its default refuses every untracked one). */
  ignoreStartupParameters?: string[];
  /** Server connections per (database, user) pair. */
  poolSize?: number;
  /** Hand server connections out in turn, not last-used first: consecutive transactions of one client land on different ones. */
  roundRobin?: boolean;
}

/** PgBouncer refuses to run as root: as root, it runs as the `postgres` OS user. */
const asRoot = process.getuid?.() === 0;

/** Starts PgBouncer with trust authentication and an admin console for user postgres. */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (binary === undefined) throw new Error('pgbouncer not found');
  const dir = mkdtempSync(join(tmpdir(), 'di-pgbouncer-'));
  const port = await freePort();
  const logfile = join(dir, 'pgbouncer.log');
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${options.target.host} port=${options.target.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'admin_users = postgres',
      `pool_mode = ${options.mode}`,
      `default_pool_size = ${options.poolSize ?? 4}`,
      'max_client_conn = 200',
      `logfile = ${logfile}`,
      ...(options.roundRobin === true ? ['server_round_robin = 1'] : []),
      ...(options.ignoreStartupParameters === undefined ? [] : [`ignore_startup_parameters = ${options.ignoreStartupParameters.join(',')}`]),
      '',
    ].join('\n'),
  );
  if (asRoot) {
    const ids = { uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()), gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()) };
    for (const file of ['', 'users.txt', 'pgbouncer.ini']) chownSync(join(dir, file), ids.uid, ids.gid);
  }
  const args = [join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = asRoot ? spawn('runuser', ['-u', 'postgres', '--', binary, ...args], { stdio: 'ignore' }) : spawn(binary, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => (existsSync(logfile) ? readFileSync(logfile, 'utf8') : '');
  await until('PgBouncer listens', () => log().includes('listening on 127.0.0.1'), 10_000);
  const admin = async (command: string) =>
    (await run('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'pgbouncer', '-c', command], { env: { ...process.env, PGCONNECT_TIMEOUT: '5' } })).stdout;
  return {
    port,
    url: (database, declared = true) => `postgres://postgres@127.0.0.1:${port}/${database}${declared ? '?pgbouncer=true' : ''}`,
    admin,
    log,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
