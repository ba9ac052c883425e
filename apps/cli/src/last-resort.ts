import { failureLine } from '@domain-index/runtime/failure-line';

/**
 * The last resort of every `domain-index` process: an error nothing caught (a stream's 'error'
 * event with no listener, a rejected promise nobody awaited) is written as one JSON log line,
 * in the logger's shape, before the process exits with code 1, instead of Node's multi-line
 * dump with the statement's parameter values in it. Written synchronously: the process is
 * about to end, and an asynchronous logger could lose the line.
 */
export function installLastResortHandler(): void {
  const fatal = (error: unknown, origin: string) => {
    const err = error instanceof Error ? error : new Error(String(error));
    const frames = (err.stack ?? '').split('\n').filter((line) => line.startsWith('    at ')).join('\n');
    const line = {
      level: 60,
      time: new Date().toISOString(),
      service: 'domain-index',
      pid: process.pid,
      err: { type: err.name, message: failureLine(err), stack: frames },
      msg: `${origin === 'unhandledRejection' ? 'unhandled promise rejection' : 'uncaught exception'}; the process exits`,
    };
    try {
      process.stderr.write(`${JSON.stringify(line)}\n`);
    } finally {
      process.exit(1);
    }
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', (reason) => fatal(reason, 'unhandledRejection'));
}
