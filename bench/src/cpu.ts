import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { childrenOf } from './servers';

/** CPU time spent by each party of a load, in milliseconds. */
export interface CpuSplit {
  /** The API process and its workers. */
  api: number;
  postgres: number;
  redis: number;
  /** The benchmark process itself: autocannon's load generator, here. */
  loadGenerator: number;
}

/** Clock ticks per second of /proc/<pid>/stat (CLK_TCK; 100 on Linux). */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** utime + stime of a process in ms; 0 when it has gone. */
function cpuMsOf(pid: number): number {
  try {
    // the command name (field 2) may hold spaces; fields are counted after its closing paren
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function pidsOf(args: string[]): number[] {
  try {
    return execFileSync('pgrep', args).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** One reading: each process's CPU so far, keyed by pid, with the party it belongs to. */
type Snapshot = Map<number, { party: keyof CpuSplit; ms: number }>;

function snapshot(apiPid: number): Snapshot {
  const times: Snapshot = new Map();
  const read = (party: keyof CpuSplit, pids: number[]) => {
    for (const pid of pids) times.set(pid, { party, ms: cpuMsOf(pid) });
  };
  // the API process and its workers (WORKERS), each counted as its own process
  read('api', [apiPid, ...childrenOf(apiPid)]);
  read('postgres', pidsOf(['-u', 'postgres']));
  read('redis', pidsOf(['-x', 'redis-server']));
  const own = process.cpuUsage();
  times.set(process.pid, { party: 'loadGenerator', ms: (own.user + own.system) / 1000 });
  return times;
}

/**
 * Runs a load and splits the CPU it cost between the API process, every PostgreSQL process,
 * Redis and this process. A process that starts during the load (a pool opening another
 * connection) counts whole; one that exits during it (an autovacuum worker) is not counted.
 */
export async function cpuDuring<T>(apiPid: number, load: () => Promise<T>): Promise<{ result: T; cpu: CpuSplit }> {
  const before = snapshot(apiPid);
  const result = await load();
  const after = snapshot(apiPid);
  const cpu: CpuSplit = { api: 0, postgres: 0, redis: 0, loadGenerator: 0 };
  for (const [pid, { party, ms }] of after) {
    // a process that started during the load (a new pooled connection) spent all of it there
    cpu[party] += ms - (before.get(pid)?.ms ?? 0);
  }
  return { result, cpu };
}
