// Where a first load's time goes: one `domain-index import` of a 1,000,000-row feed into a fresh
// database, with the import database's active statements (pg_stat_activity) and the CPU of the
// import process and of the rest of the machine (PostgreSQL) sampled every 0.5 s. Prints a table of the
// phases: their wall time and the CPU each side used meanwhile.
// `BENCH_DATABASE_URL=... pnpm --filter @domain-index/bench first-load-timeline`
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, sql } from '@domain-index/db';
import { measureImport, writeFeed } from './import-bench';
import { BENCH } from './settings';

const ROWS = Number(process.env.BENCH_FIRST_LOAD_ROWS ?? 1_000_000);
const TICK = 500;

/** CPU seconds (user + system) of every process whose command line matches. */
function cpuOf(match: (cmdline: string) => boolean): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!match(cmdline)) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      /* gone */
    }
  }
  return ticks / 100;
}
const importCpu = () => cpuOf((c) => c.includes('domain-index') && c.includes('import'));
/** CPU seconds of the whole machine: PostgreSQL's parallel workers come and go between samples. */
function machineCpu(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
}

/** A phase of the import by the statements active in the import database. */
function phaseOf(statements: string, at: number): string {
  if (/(^|\| )copy /i.test(statements)) return 'reading, validating, COPY into staging';
  if (/with ranked as/i.test(statements)) return 'dropping duplicate names';
  if (/with appended as|insert into/i.test(statements)) return 'appending into the new table';
  if (/create (unique )?index/i.test(statements)) return 'building the indexes';
  if (/(^|\| )analyze /i.test(statements)) return 'statistics';
  return at < 5 ? 'start (no statement yet)' : 'between statements (commits, swap)';
}

const scratch = mkdtempSync(join(tmpdir(), 'di-timeline-'));
const feed = join(scratch, 'feed.jsonl');
await writeFeed(feed, ROWS);
const monitor = await openDatabase({ databaseUrl: BENCH.databaseUrl, maxConnections: 1 });
const database = new URL(BENCH.importDatabaseUrl).pathname.slice(1);
interface Sample {
  at: number;
  phase: string;
  importCpu: number;
  machineCpu: number;
}
const samples: Sample[] = [];
let running = true;
const started = performance.now();
const sampling = (async () => {
  let lastImport = 0;
  while (running) {
    const active = await monitor.rows<{ query: string }>(sql`
      select regexp_replace(left(query, 60), '[[:space:]]+', ' ', 'g') as query from pg_stat_activity
      where datname = ${database} and state = 'active' and backend_type = 'client backend' and pid <> pg_backend_pid() order by query`);
    const cpu = importCpu();
    lastImport = Math.max(lastImport, cpu);
    const phase =
      active.length === 0
        ? '(no statement)'
        : active.map((a) => a.query.replace(/"[a-z_]+_[0-9a-f]{12}(_\d+)?"/g, 'T')).join(' | ');
    samples.push({
      at: (performance.now() - started) / 1000,
      phase,
      importCpu: lastImport,
      machineCpu: machineCpu(),
    });
    await new Promise((resolve) => setTimeout(resolve, TICK));
  }
})();
try {
  const result = await measureImport(BENCH.databaseUrl, BENCH.importDatabaseUrl, feed, ROWS, true);
  running = false;
  await sampling;
  process.stdout.write(
    `${ROWS} rows in ${result.seconds} s, ${result.rowsPerSecond} rows/s, peak ${result.peakRssMiB} MiB\n`,
  );
  // each sample's interval goes to the phase its statements show
  const phases = new Map<string, { seconds: number; importCpu: number; otherCpu: number }>();
  for (let i = 0; i + 1 < samples.length; i++) {
    const [a, b] = [samples[i]!, samples[i + 1]!];
    const phase = phaseOf(a.phase, a.at);
    const total = phases.get(phase) ?? { seconds: 0, importCpu: 0, otherCpu: 0 };
    total.seconds += b.at - a.at;
    total.importCpu += b.importCpu - a.importCpu;
    total.otherCpu += b.machineCpu - a.machineCpu - (b.importCpu - a.importCpu);
    phases.set(phase, total);
  }
  process.stdout.write(
    '| phase | wall, s | import process CPU, s | rest of the machine (PostgreSQL) CPU, s |\n|---|---:|---:|---:|\n',
  );
  for (const [phase, total] of phases) {
    process.stdout.write(
      `| ${phase} | ${total.seconds.toFixed(1)} | ${total.importCpu.toFixed(1)} | ${total.otherCpu.toFixed(1)} |\n`,
    );
  }
} finally {
  running = false;
  await monitor.close();
  rmSync(scratch, { recursive: true, force: true });
}
