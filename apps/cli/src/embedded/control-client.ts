import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { CliError } from '../cli-error';
import type { Config } from '@domain-index/config/config';
import type { ControlFrame, ControlRequest } from './control-protocol';
import { DataDirInUseError, liveHolder } from './data-dir-lock';

/**
 * Runs a command inside the live process that holds the embedded database, when one does:
 * through its control socket, with this process's output and exit code. Returns false when no
 * process holds it (the command runs here); throws DataDirInUseError when the holder has no
 * control socket (another command, such as a long import).
 */
export async function forwardToOwner(config: Config, args: string[]): Promise<boolean> {
  if (config.databaseUrl !== undefined || config.dataDir.startsWith('memory://')) return false;
  const holder = liveHolder(config.dataDir);
  if (holder === undefined) return false;
  if (holder.control === null) throw new DataDirInUseError(config.dataDir, holder, 'wait for it to finish');
  const readsStdin = args[0] === 'import' && args.includes('-');
  process.exitCode = await runThrough(holder.control, holder.pid, { args, cwd: process.cwd(), stdin: readsStdin });
  return true;
}

/** Sends one command over the socket, copies its output here, and resolves to its exit code. */
function runThrough(socketPath: string, pid: number, request: ControlRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path: socketPath, allowHalfOpen: true });
    let exit: number | undefined;
    socket.once('error', (error: NodeJS.ErrnoException) => {
      reject(new CliError(`cannot reach the running server (pid ${pid}) through ${socketPath}: ${error.code ?? error.message}`));
    });
    socket.once('connect', () => {
      socket.write(`${JSON.stringify(request)}\n`);
      if (request.stdin) process.stdin.pipe(socket);
      else socket.end();
    });
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    lines.on('line', (line) => {
      const frame = JSON.parse(line) as ControlFrame;
      if ('stdout' in frame) process.stdout.write(frame.stdout);
      else if ('stderr' in frame) process.stderr.write(frame.stderr);
      else exit = frame.exit;
    });
    socket.once('close', () => {
      if (exit !== undefined) resolve(exit);
      else reject(new CliError(`the running server (pid ${pid}) ended before the command finished; see its log`));
    });
  });
}
