import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from '../cli-error';

/** The file in DATA_DIR that says which process has the embedded database open. */
export const LOCK_FILE = 'domain-index.lock';

/** What the lock file says of the process that holds it. */
export interface LockHolder {
  pid: number;
  /** The command it runs, as typed: `serve`, `import --source x feed.jsonl`. */
  command: string;
  startedAt: string;
  /** The control socket other processes run their commands through; null when it has none. */
  control: string | null;
  /** The kernel's start time of the process (Linux), so a reused pid is not taken for it. */
  startTicks: string | null;
}

/** The embedded database is another live process's: one line that names it. */
export class DataDirInUseError extends CliError {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
    what: string,
  ) {
    super(
      `the embedded database in ${dataDir} is in use by \`domain-index ${holder.command}\` (pid ${holder.pid}): ${what}`,
    );
  }
}

interface HeldLock {
  readonly path: string;
  holder: LockHolder;
}

/** The locks this process holds, by resolved data directory: taking one again is a no-op. */
const held = new Map<string, HeldLock>();

/**
 * Takes the embedded database in `dataDir` for this process, or throws DataDirInUseError when
 * a live process has it. PGlite is one process's: two processes that open one directory lose
 * each other's writes and can leave it unreadable. A lock left by a process that no longer
 * runs (killed, crashed, a reused pid) is taken over. The lock goes when the process exits.
 */
export function takeDataDir(dataDir: string, command: string, what = 'stop it first'): void {
  const directory = resolve(dataDir);
  if (held.has(directory)) return;
  mkdirSync(directory, { recursive: true });
  const path = join(directory, LOCK_FILE);
  const holder: LockHolder = {
    pid: process.pid,
    command,
    startedAt: new Date().toISOString(),
    control: null,
    startTicks: startTicksOf(process.pid),
  };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(holder)}\n`);
      } finally {
        closeSync(fd);
      }
      held.set(directory, { path, holder });
      if (held.size === 1) process.once('exit', releaseAll);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const found = readLock(path);
    if (found !== undefined && isAlive(found)) throw new DataDirInUseError(dataDir, found, what);
    // stale (or unreadable, from a process killed while writing it): taken over
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new CliError(`cannot take the embedded database in ${dataDir}: its lock file ${path} keeps changing`);
}

/** The live process holding the embedded database in `dataDir`, if any (never this one). */
export function liveHolder(dataDir: string): LockHolder | undefined {
  const directory = resolve(dataDir);
  if (held.has(directory)) return undefined;
  const found = readLock(join(directory, LOCK_FILE));
  return found !== undefined && isAlive(found) ? found : undefined;
}

/** Records in this process's lock the control socket others reach it through. */
export function announceControl(dataDir: string, socketPath: string | null): void {
  const lock = held.get(resolve(dataDir));
  if (lock === undefined) throw new Error(`${dataDir} is not held by this process`);
  lock.holder = { ...lock.holder, control: socketPath };
  const fd = openSync(lock.path, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(lock.holder)}\n`);
  } finally {
    closeSync(fd);
  }
}

/** Gives the embedded database in `dataDir` up (after it is closed). */
export function releaseDataDir(dataDir: string): void {
  const directory = resolve(dataDir);
  const lock = held.get(directory);
  if (lock === undefined) return;
  held.delete(directory);
  removeIfOurs(lock);
}

function releaseAll(): void {
  for (const lock of held.values()) removeIfOurs(lock);
  held.clear();
}

/** Removes a lock file only while it is still this process's. */
function removeIfOurs(lock: HeldLock): void {
  if (readLock(lock.path)?.pid !== process.pid) return;
  try {
    unlinkSync(lock.path);
  } catch {
    // already gone
  }
}

function readLock(path: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    return {
      pid: parsed.pid,
      command: typeof parsed.command === 'string' ? parsed.command : 'an unknown command',
      startedAt: typeof parsed.startedAt === 'string' ? parsed.startedAt : '',
      control: typeof parsed.control === 'string' ? parsed.control : null,
      startTicks: typeof parsed.startTicks === 'string' ? parsed.startTicks : null,
    };
  } catch {
    return undefined;
  }
}

/** Whether the process a lock names still runs: the same pid, started at the same time. */
function isAlive(holder: LockHolder): boolean {
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: a live process of another user
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const ticks = startTicksOf(holder.pid);
  return holder.startTicks === null || ticks === null || ticks === holder.startTicks;
}

/** Field 22 of /proc/PID/stat (the process's start time in clock ticks), where there is one. */
function startTicksOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
