import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Logger } from '@domain-index/runtime/logger';
import { runWithIo } from './cli-io';
import { CONTROL_DIR, CONTROL_SOCKET, MAX_REQUEST_BYTES, type ControlFrame, type ControlRequest } from './control-protocol';

/** Unix socket paths are limited to 108 bytes (107 and the terminating zero) on Linux. */
const MAX_SOCKET_PATH = 107;

/** The running server's control socket; close() stops taking commands after the one in flight. */
export interface ControlServer {
  readonly path: string;
  close(): Promise<void>;
}

/**
 * Opens the control socket of the process that holds the embedded database in `dataDir`: other
 * `domain-index` processes run their database commands here (`keys create`, `import`, ...), on
 * this process's open database, one at a time, with their own output and exit code. The socket
 * is in a directory only the owner may enter (0700). Returns undefined, with a warning, when
 * the path is too long for a Unix socket: commands are then refused while the server runs.
 */
export async function openControlServer(
  dataDir: string,
  logger: Logger,
  run: (args: readonly string[]) => Promise<void>,
): Promise<ControlServer | undefined> {
  const directory = join(resolve(dataDir), CONTROL_DIR);
  const path = join(directory, CONTROL_SOCKET);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    logger.warn({ path }, 'DATA_DIR is too long a path for a control socket: other domain-index commands are refused while the server runs');
    return undefined;
  }
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  // this process holds the directory's lock: a socket left there is a killed owner's
  rmSync(path, { force: true });
  let queue: Promise<void> = Promise.resolve();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    queue = queue.then(() => serveOne(socket, run, logger));
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(path, () => {
      server.off('error', fail);
      done();
    });
  });
  chmodSync(path, 0o600);
  return { path, close: () => closeServer(server, () => queue) };
}

async function closeServer(server: Server, inFlight: () => Promise<void>): Promise<void> {
  await new Promise<void>((done) => server.close(() => done()));
  await inFlight();
}

/** Reads one request, runs it with the caller's io, and answers its output and exit code. */
async function serveOne(socket: Socket, run: (args: readonly string[]) => Promise<void>, logger: Logger): Promise<void> {
  const request = await readRequest(socket).catch(() => undefined);
  if (request === undefined) {
    socket.destroy();
    return;
  }
  const send = (frame: ControlFrame) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(frame)}\n`);
  };
  let code = 0;
  const stdin = new PassThrough();
  if (request.stdin) socket.pipe(stdin);
  else stdin.end();
  socket.on('error', () => undefined);
  logger.info({ command: request.args[0] }, 'running a command for another domain-index process');
  await runWithIo(
    {
      stdout: { write: (text: string | Uint8Array) => (send({ stdout: String(text) }), true) },
      stderr: { write: (text: string | Uint8Array) => (send({ stderr: String(text) }), true) },
      stdin,
      cwd: request.cwd,
      setExitCode: (exit) => (code = exit),
      inServer: true,
    },
    () => run(request.args),
  );
  send({ exit: code });
  socket.end();
}

/** The request line, and the socket left positioned at stdin's first byte. */
function readRequest(socket: Socket): Promise<ControlRequest> {
  return new Promise((done, fail) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf(10);
      if (end === -1) {
        if (buffered.length > MAX_REQUEST_BYTES) finish(new Error('request line too long'));
        return;
      }
      socket.off('data', onData);
      socket.pause();
      const rest = buffered.subarray(end + 1);
      if (rest.length > 0) socket.unshift(rest);
      try {
        const parsed = JSON.parse(buffered.subarray(0, end).toString('utf8')) as Partial<ControlRequest>;
        if (!Array.isArray(parsed.args) || !parsed.args.every((arg) => typeof arg === 'string') || typeof parsed.cwd !== 'string') throw new Error('not a request');
        finish(undefined, { args: parsed.args, cwd: parsed.cwd, stdin: parsed.stdin === true });
      } catch (error) {
        finish(error as Error);
      }
    };
    const finish = (error: Error | undefined, request?: ControlRequest) => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      if (error !== undefined || request === undefined) fail(error ?? new Error('no request'));
      else done(request);
    };
    const onEnd = () => finish(new Error('ended before a request'));
    socket.on('data', onData);
    socket.once('end', onEnd);
  });
}
