// Searches on a hot streaming replica while the primary imports:
// `pnpm --filter @domain-index/bench replica-imports` (see BENCHMARKS.md, "Searches on a replica
// during imports"). A primary and a replica of their own (initdb, pg_basebackup -R), the real
// `serve` reading from the replica, four clients searching it without pause, and on the primary:
// a first load of 1,000,000 listings (the bulk path and its swap), a batch of other names
// replacing them all (the upsert and delete, then VACUUM and ANALYZE), and a purge. Per phase: the searches'
// latency, errors, the replica's recovery conflicts and the searches it logged waiting for a lock.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateDatabase, openDatabase, sql, type Database } from '@domain-index/db';
import { startCluster, startReplica } from '@domain-index/db/clusters';
import { runCli } from './dataset';
import { writeFeed } from './import-bench';
import { benchKey, startApi } from './servers';

const ROWS = Number(process.env.BENCH_REPLICA_ROWS ?? 1_000_000);
const CLIENTS = 4;
const log = (line: string) => process.stderr.write(`${line}\n`);
const scratch = mkdtempSync(join(tmpdir(), 'di-replica-bench-'));

// Settings of a small dedicated server (bench/postgresql.bench.conf, scaled to share one machine
// between two servers); a search that waits 100 ms for a lock, or replay that waits on a search,
// is logged by the replica.
const settings = [
  "shared_buffers = '2GB'",
  "max_wal_size = '8GB'",
  "maintenance_work_mem = '512MB'",
  "checkpoint_timeout = '15min'",
  'wal_compression = off',
  'random_page_cost = 1.1',
];
const primary = await startCluster(settings);
const admin = await openDatabase({ databaseUrl: primary.url(), maxConnections: 1 });
await admin.rows(sql`create database bench`);
await admin.close();
const primaryDb = await openDatabase({ databaseUrl: primary.url('bench'), maxConnections: 2 });
await migrateDatabase(primaryDb);
const replica = await startReplica(primary, [
  'log_lock_waits = on',
  "deadlock_timeout = '100ms'",
  'log_recovery_conflict_waits = on',
]);
const replicaDb = await openDatabase({ databaseUrl: replica.url('bench'), maxConnections: 1 });

log('feeds...');
const first = join(scratch, 'first.jsonl');
await writeFeed(first, ROWS);
// another seed: other names, so the batch deletes every row and inserts as many
const second = join(scratch, 'second.jsonl');
await writeFeed(second, ROWS, 8);

const key = await benchKey(primary.url('bench'));
const api = await startApi({
  DATABASE_URL: primary.url('bench'),
  DATABASE_REPLICA_URLS: replica.url('bench'),
  // the replica stays in use however far it falls behind: the point is to search it
  REPLICA_MAX_LAG_MS: '600000',
});

const queries = [
  '/domains?status=all',
  '/domains?search=cloud',
  '/domains?sort=current_bid&status=all',
  '/domains?min_price=100&max_price=500',
  '/stats',
];
interface Sample {
  at: number;
  ms: number;
  status: number;
}
const samples: Sample[] = [];
let running = true;
const clients = Array.from({ length: CLIENTS }, async (_, client) => {
  for (let i = client; running; i += 1) {
    const at = performance.now();
    const response = await fetch(`${api.url}/api/v1${queries[i % queries.length]!}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    await response.arrayBuffer();
    samples.push({ at, ms: performance.now() - at, status: response.status });
  }
});

async function conflicts(database: Database): Promise<number> {
  const [row] = await database.rows<{ n: number }>(sql`
    select (confl_tablespace + confl_lock + confl_snapshot + confl_bufferpin + confl_deadlock)::int as n
    from pg_stat_database_conflicts where datname = 'bench'`);
  return row?.n ?? 0;
}

/** The replica's position behind the primary's, in bytes of WAL, sampled while a phase runs. */
async function maxReplayGap(during: Promise<unknown>): Promise<number> {
  let gap = 0;
  let done = false;
  void during.finally(() => (done = true));
  while (!done) {
    const [{ lsn }] = (await primaryDb.rows<{ lsn: string }>(
      sql`select pg_current_wal_lsn()::text as lsn`,
    )) as [{ lsn: string }];
    const [row] = await replicaDb.rows<{ gap: string }>(
      sql`select pg_wal_lsn_diff(${lsn}::pg_lsn, pg_last_wal_replay_lsn())::text as gap`,
    );
    gap = Math.max(gap, Number(row?.gap ?? 0));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return gap;
}

async function caughtUp(): Promise<void> {
  const [{ lsn }] = (await primaryDb.rows<{ lsn: string }>(
    sql`select pg_current_wal_lsn()::text as lsn`,
  )) as [{ lsn: string }];
  for (;;) {
    const [row] = await replicaDb.rows<{ behind: boolean }>(
      sql`select pg_last_wal_replay_lsn() < ${lsn}::pg_lsn as behind`,
    );
    if (row?.behind === false) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Phase {
  name: string;
  seconds: number;
  searches: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
  replayGapMiB: number;
  conflicts: number;
  lockWaitsLogged: number;
}
const phases: Phase[] = [];
async function phase(name: string, work: () => Promise<unknown>): Promise<void> {
  log(`phase: ${name}`);
  const conflictsBefore = await conflicts(replicaDb);
  const waitsBefore = lockWaits(await replica.log());
  const started = performance.now();
  const running = work();
  const gap = await maxReplayGap(running);
  await running;
  await caughtUp();
  const ended = performance.now();
  const window = samples.filter((sample) => sample.at >= started && sample.at < ended);
  const sorted = window.map((sample) => sample.ms).sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  phases.push({
    name,
    seconds: Math.round((ended - started) / 100) / 10,
    searches: window.length,
    errors: window.filter((sample) => sample.status >= 500).length,
    p50: at(0.5),
    p99: at(0.99),
    max: Math.round(sorted.at(-1) ?? 0),
    replayGapMiB: Math.round(gap / 2 ** 20),
    conflicts: (await conflicts(replicaDb)) - conflictsBefore,
    lockWaitsLogged: lockWaits(await replica.log()) - waitsBefore,
  });
}
const lockWaits = (serverLog: string) =>
  serverLog
    .split('\n')
    .filter((line) => /still waiting for AccessShareLock|recovery still waiting/.test(line)).length;
const importFeed = (file: string) =>
  runCli(['import', '--source', 'bidhaus', file], {
    DATABASE_URL: primary.url('bench'),
    LOG_LEVEL: 'warn',
  });

await phase('idle (10 s)', () => new Promise((resolve) => setTimeout(resolve, 10_000)));
await phase(`first load, ${ROWS.toLocaleString('en')} rows`, () => importFeed(first));
await phase(
  `a batch replacing all ${ROWS.toLocaleString('en')} rows, then VACUUM and ANALYZE`,
  () => importFeed(second),
);
await phase('purge of ended listings', () =>
  runCli(['purge'], { DATABASE_URL: primary.url('bench'), LOG_LEVEL: 'warn', RETENTION_DAYS: '0' }),
);
running = false;
await Promise.all(clients);
await api.stop();
await primaryDb.close();
await replicaDb.close();
await replica.destroy();
await primary.destroy();
rmSync(scratch, { recursive: true, force: true });

const file = fileURLToPath(new URL('../results/replica-imports.json', import.meta.url));
writeFileSync(
  file,
  `${JSON.stringify({ ranAt: new Date().toISOString(), rows: ROWS, clients: CLIENTS, phases }, null, 2)}\n`,
);
const table = [
  '| phase | seconds | searches | 5xx | p50 ms | p99 ms | max ms | replica behind, max MiB of WAL | recovery conflicts | searches that waited >= 100 ms for a lock |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...phases.map(
    (p) =>
      `| ${p.name} | ${p.seconds} | ${p.searches} | ${p.errors} | ${p.p50} | ${p.p99} | ${p.max} | ${p.replayGapMiB} | ${p.conflicts} | ${p.lockWaitsLogged} |`,
  ),
];
process.stdout.write(`${table.join('\n')}\n`);
log(`done: ${file}`);
