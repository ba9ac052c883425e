/**
 * PostgreSQL servers of a test's or a benchmark's own: initdb on a free port, and streaming
 * replicas made with pg_basebackup -R, which the caller may stop and start. For suites and
 * benchmarks only; the service never starts a server.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createServer } from 'node:net';

const run = promisify(execFile);

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * The directory of PostgreSQL's server programs (initdb, pg_ctl, pg_basebackup): PG_BIN_DIR,
 * else the newest /usr/lib/postgresql/N/bin (Debian's layout), else undefined.
 */
export function postgresBinDir(): string | undefined {
  const fromEnv = process.env.PG_BIN_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

let noticeShown = false;

/**
 * Whether the suites that start PostgreSQL servers of their own (a server to stop, a primary
 * with a streaming replica) can run here. In CI a missing server is an error, never a skip.
 */
export function ownClustersSkipped(): boolean {
  if (postgresBinDir() !== undefined) return false;
  if (process.env.CI === 'true')
    throw new Error(
      'CI=true but PostgreSQL server programs (initdb, pg_ctl) were not found: set PG_BIN_DIR',
    );
  if (!noticeShown) {
    noticeShown = true;
    console.warn(
      'NOTICE: PostgreSQL server programs (initdb, pg_ctl) not found; suites that start their own PostgreSQL are skipped (set PG_BIN_DIR).',
    );
  }
  return true;
}

/** The server refuses to run as root: as root, its programs run as the `postgres` OS user. */
const asRoot = process.getuid?.() === 0;

async function pgProgram(program: string, args: string[]): Promise<string> {
  const binary = join(postgresBinDir()!, program);
  const { stdout } = asRoot
    ? await run('runuser', ['-u', 'postgres', '--', binary, ...args])
    : await run(binary, args);
  return stdout;
}

/** A directory the server's user owns. */
function ownedDirectory(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
  }
  return dir;
}

let ids: { uid: number; gid: number } | undefined;
function postgresIds(): { uid: number; gid: number } {
  ids ??= {
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  };
  return ids;
}

/** A PostgreSQL server of a test's own, on a free loopback port, which the test may stop and start. */
export interface PostgresCluster {
  readonly port: number;
  readonly dataDir: string;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  start(): Promise<void>;
  /** Stops the server (fast shutdown: connections are ended). */
  stop(): Promise<void>;
  /** Stops it if running and removes its files. */
  destroy(): Promise<void>;
  /** The server's log so far. */
  log(): Promise<string>;
}

/** Settings for a throwaway test server: durability is not needed, speed is. */
const TEST_SETTINGS = [
  'fsync = off',
  'synchronous_commit = off',
  'full_page_writes = off',
  'shared_buffers = 64MB',
  'max_connections = 60',
];

class Cluster implements PostgresCluster {
  constructor(
    readonly port: number,
    readonly dataDir: string,
  ) {}

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    await pgProgram('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.dataDir, 'server.log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }

  async stop(): Promise<void> {
    await pgProgram('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
  }

  async destroy(): Promise<void> {
    await pgProgram('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']).catch(
      () => undefined,
    );
    rmSync(join(this.dataDir, '..'), { recursive: true, force: true });
  }

  log(): Promise<string> {
    try {
      return Promise.resolve(readFileSync(join(this.dataDir, 'server.log'), 'utf8'));
    } catch {
      return Promise.resolve('');
    }
  }
}

/** `postgresql.auto.conf` lines: the port, loopback only, the socket in the data directory. */
function listenSettings(port: number, dataDir: string): string[] {
  return [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dataDir}'`,
  ];
}

/** initdb on a free port (trust authentication, user postgres), started. */
export async function startCluster(extraSettings: string[] = []): Promise<PostgresCluster> {
  const parent = ownedDirectory('di-pg-');
  const dataDir = join(parent, 'data');
  await pgProgram('initdb', [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '--encoding=UTF8',
    '--locale=C',
  ]);
  const port = await freePort();
  await appendSettings(dataDir, [
    ...listenSettings(port, dataDir),
    ...TEST_SETTINGS,
    ...extraSettings,
  ]);
  const cluster = new Cluster(port, dataDir);
  await cluster.start();
  return cluster;
}

/**
 * A streaming replica of `primary`: `pg_basebackup -R` (which writes primary_conninfo and
 * standby.signal), on a free port of its own, started as a hot standby.
 */
export async function startReplica(
  primary: PostgresCluster,
  extraSettings: string[] = [],
): Promise<PostgresCluster> {
  const parent = ownedDirectory('di-pg-replica-');
  const dataDir = join(parent, 'data');
  await pgProgram('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    dataDir,
    '-R',
    '-X',
    'stream',
    '--checkpoint=fast',
    '--no-sync',
  ]);
  const port = await freePort();
  await appendSettings(dataDir, [
    ...listenSettings(port, dataDir),
    'hot_standby = on',
    ...extraSettings,
  ]);
  const cluster = new Cluster(port, dataDir);
  await cluster.start();
  return cluster;
}

/** Appends settings to the data directory's postgresql.auto.conf, as its owner. */
async function appendSettings(dataDir: string, settings: string[]): Promise<void> {
  const staging = join(tmpdir(), `di-pg-settings-${process.pid}-${Date.now()}.conf`);
  writeFileSync(staging, `${settings.join('\n')}\n`, { mode: 0o644 });
  try {
    const target = join(dataDir, 'postgresql.auto.conf');
    if (asRoot)
      await run('runuser', [
        '-u',
        'postgres',
        '--',
        'sh',
        '-c',
        `cat "$0" >> "$1"`,
        staging,
        target,
      ]);
    else await run('sh', ['-c', `cat "$0" >> "$1"`, staging, target]);
  } finally {
    rmSync(staging, { force: true });
  }
}
