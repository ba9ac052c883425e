import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { migrateDatabase, openDatabase, sql } from '@domain-index/db';

/**
 * The `domain-index` command the benchmark runs (seed, serve, import): this checkout's, or with
 * BENCH_API_CLI another checkout's, so that two commits of the API are measured by one and the
 * same benchmark (BENCHMARKS.md, before and after).
 */
export const CLI = process.env.BENCH_API_CLI ?? fileURLToPath(new URL('../../apps/cli/bin/domain-index.js', import.meta.url));
const SEED_SOURCE = fileURLToPath(new URL('../../packages/indexer/src/seed.ts', import.meta.url));

/** What the benchmark runs on, and how it got there. */
export interface Dataset {
  rows: number;
  listings: number;
  fingerprint: string;
  reused: boolean;
  seedSeconds: number | undefined;
  seedRowsPerSecond: number | undefined;
  /** Disk used, MiB: the whole database, the listings table (heap and TOAST) and its indexes. */
  disk?: { databaseMiB: number; listingsMiB: number; indexesMiB: number };
}

/** Disk used by the dataset, measured now. */
async function diskOf(database: Awaited<ReturnType<typeof openDatabase>>): Promise<NonNullable<Dataset['disk']>> {
  const [row] = await database.rows<{ database: string; table: string; indexes: string }>(sql`
    select pg_database_size(current_database())::text as database,
           pg_table_size('listings')::text as table,
           pg_indexes_size('listings')::text as indexes`);
  const mib = (bytes: string | undefined) => Math.round(Number(bytes ?? 0) / 2 ** 20);
  return { databaseMiB: mib(row?.database), listingsMiB: mib(row?.table), indexesMiB: mib(row?.indexes) };
}

/** Identifies a seeded dataset: row count, seed, and the generator's source. */
function fingerprintOf(rows: number, seed: number): string {
  return createHash('sha256').update(`${rows}:${seed}:`).update(readFileSync(SEED_SOURCE)).digest('hex').slice(0, 16);
}

/** Runs the CLI (this checkout's, or another's) with an environment; resolves with its stdout, rejects on a non-zero exit. */
export function runCli(args: string[], env: Record<string, string>, cli = CLI): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`domain-index ${args.join(' ')} exited ${String(code)}`))));
  });
}

/** Creates the database of a URL when the server does not have it yet (a new machine). */
export async function ensureDatabaseExists(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const admin = await openDatabase({ databaseUrl: adminUrl.toString(), maxConnections: 1 });
  try {
    const [found] = await admin.rows<{ n: number }>(sql`select count(*)::int as n from pg_database where datname = ${name}`);
    if (found?.n === 0) await admin.rows(sql.raw(`create database "${name.replaceAll('"', '""')}"`));
  } finally {
    await admin.close();
  }
}

/** What the benchmark made in a database, and how long it took: a row per fingerprint. */
export async function ensureBenchMeta(database: Awaited<ReturnType<typeof openDatabase>>): Promise<void> {
  await database.rows(sql`create table if not exists bench_meta (fingerprint text primary key, listings bigint not null, seeded_at timestamptz not null default now(), seconds real not null)`);
}

/**
 * The benchmark's listings: reused when the database already holds them (same fingerprint and
 * row count), else seeded through `domain-index seed`, timed.
 */
export async function ensureDataset(url: string, rows: number, seed: number): Promise<Dataset> {
  const fingerprint = fingerprintOf(rows, seed);
  await ensureDatabaseExists(url);
  const database = await openDatabase({ databaseUrl: url, maxConnections: 2 });
  try {
    await migrateDatabase(database);
    await ensureBenchMeta(database);
    const [meta] = await database.rows<{ listings: string; seconds: number }>(sql`select listings::text, seconds from bench_meta where fingerprint = ${fingerprint}`);
    const [count] = await database.rows<{ n: string }>(sql`select count(*)::text as n from listings`);
    if (meta !== undefined && meta.listings === count?.n) {
      return { rows, listings: Number(meta.listings), fingerprint, reused: true, seedSeconds: meta.seconds, seedRowsPerSecond: rows / meta.seconds, disk: await diskOf(database) };
    }
    process.stderr.write(`seeding ${rows} listings into ${new URL(url).pathname} (this takes minutes)...\n`);
    await database.rows(sql`truncate listings, source_syncs, source_batches, bench_meta`);
    const started = performance.now();
    await runCli(['seed', '--rows', String(rows), '--seed', String(seed)], { DATABASE_URL: url, LOG_LEVEL: 'warn' });
    const seconds = (performance.now() - started) / 1000;
    await database.rows(sql`vacuum analyze listings`);
    const [after] = await database.rows<{ n: string }>(sql`select count(*)::text as n from listings`);
    await database.rows(sql`insert into bench_meta (fingerprint, listings, seconds) values (${fingerprint}, ${after!.n}::bigint, ${seconds})`);
    return { rows, listings: Number(after!.n), fingerprint, reused: false, seedSeconds: seconds, seedRowsPerSecond: rows / seconds, disk: await diskOf(database) };
  } finally {
    await database.close();
  }
}
