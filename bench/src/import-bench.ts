import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { migrateDatabase, openDatabase, sql } from '@domain-index/db';
import { seedRecords } from '@domain-index/indexer';
import { CLI } from './dataset';

/** One measured import of a feed file. */
export interface ImportResult {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  peakRssMiB: number;
}

/** Writes an N-row JSONL feed of one source (`source`), from the seed generator (another seed, other names). */
export async function writeFeed(path: string, rows: number, seed = 7, source = 'bidhaus'): Promise<void> {
  const out = createWriteStream(path);
  for (const { record } of seedRecords({ rows, seed, sources: [source], now: new Date() })) {
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** A fresh, migrated database for an import run. */
async function freshDatabase(adminUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = await openDatabase({ databaseUrl: adminUrl, maxConnections: 1 });
  await admin.rows(sql.raw(`drop database if exists "${name}" with (force)`));
  await admin.rows(sql.raw(`create database "${name}"`));
  await admin.close();
  const database = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  await migrateDatabase(database);
  await database.close();
}

/**
 * Times `domain-index import` of a feed file end to end (process start to exit), into an empty
 * database (`fresh`) or over the batch already there, sampling the process's resident memory
 * every 50 ms for its peak.
 */
export async function measureImport(
  adminUrl: string,
  url: string,
  file: string,
  rows: number,
  fresh = true,
  options: { source?: string; env?: Record<string, string>; cli?: string } = {},
): Promise<ImportResult> {
  if (fresh) await freshDatabase(adminUrl, url);
  const started = performance.now();
  const child = spawn(process.execPath, [options.cli ?? CLI, 'import', '--source', options.source ?? 'bidhaus', file], {
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let peakKb = 0;
  const { readFileSync } = await import('node:fs');
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid!}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      /* the process has exited */
    }
  }, 50);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(sampler);
  if (code !== 0) throw new Error(`import exited ${String(code)}`);
  const seconds = (performance.now() - started) / 1000;
  return { rows, seconds: Math.round(seconds * 10) / 10, rowsPerSecond: Math.round(rows / seconds), peakRssMiB: Math.round(peakKb / 1024) };
}
