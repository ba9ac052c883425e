import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * How long a connection must have been idle before a draining server closes it. A balancer
 * reuses its most recently used keep-alive connection first (nginx's cache is last in, first
 * out), so one idle this long is not the one a request is being written to: closing it then
 * does not meet a request on the wire, which the balancer would log as a reset.
 */
export const DRAIN_IDLE_CLOSE_MS = 1_000;
/** How often a draining server looks for connections idle long enough to close. */
const SWEEP_MS = 100;
/** A sweep whose turn of I/O took longer than this is skipped: the sockets may hold requests it did not read. */
const SWEEP_AFTER_IO_MS = 50;

/** What a shutdown calls to stop the server: no new connection, and each open one closed as it finishes. */
export interface ConnectionDrain {
  /**
   * Stops accepting connections; from now on every response tells its client `Connection:
   * close` and closes its connection once written, and a connection idle for
   * DRAIN_IDLE_CLOSE_MS is closed. `closed` is called once the last connection has closed.
   */
  close(closed: () => void): void;
  /** Closes every connection now, busy or not: the shutdown's deadline. */
  closeAll(): void;
}

/**
 * Lets a shutdown close keep-alive connections without a reset. Node's `server.close()` closes
 * every idle connection at once, and a request a balancer is sending on one of them at that
 * moment meets a closed socket (nginx logs "reset by peer" and retries it elsewhere, or fails a
 * POST); and a connection that carried a request in flight would stay open for the whole
 * keep-alive timeout after its response (65 s, see KEEP_ALIVE_TIMEOUT_MS). So the listener is
 * closed as a plain net.Server (no new connections, the open ones left alone), a response
 * written from then on says `Connection: close`, and only connections idle a while are closed.
 */
export function trackConnections(server: Server): ConnectionDrain {
  /** Every open connection, with the time it last became idle (undefined while a request runs on it). */
  const open = new Map<Socket, number | undefined>();
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.on('connection', (socket: Socket) => {
    open.set(socket, performance.now());
    socket.once('close', () => open.delete(socket));
  });
  // One listener for every response, not a closure per request: it finds its response as `this`.
  function responseClosed(this: ServerResponse): void {
    inFlight.delete(this);
    const socket = this.req.socket;
    if (open.has(socket)) open.set(socket, performance.now());
  }
  // before the application's own listener: one that answers at once must not have written its
  // head before a draining server's `Connection: close` is set
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    open.set(req.socket, undefined);
    inFlight.add(res);
    if (draining) closeAfter(res);
    // a response closes once: `on` spares the wrapper `once` allocates per request
    res.on('close', responseClosed);
  });
  const sweep = () => {
    const now = performance.now();
    for (const [socket, idleSince] of open) {
      if (idleSince !== undefined && now - idleSince >= DRAIN_IDLE_CLOSE_MS) socket.destroy();
    }
  };
  return {
    close(closed) {
      draining = true;
      for (const res of inFlight) closeAfter(res);
      // net.Server's own close: http.Server's would close every idle connection at once
      NetServer.prototype.close.call(server, () => {
        clearInterval(sweeping);
        closed();
      });
      // The sweep runs after the loop's I/O, never straight from its timer: timers run before
      // I/O in each turn of the loop, so after a stall (a long garbage collection, a starved
      // CPU) a timer-run sweep would see a connection as idle for seconds while the request the
      // balancer sent on it during the stall waits unread in the socket, and reset that request.
      // The I/O first starts that request (busy, not swept); setImmediate runs after it. Should
      // that I/O itself have stalled (its callbacks held the loop), requests may have arrived
      // since it read the sockets: that sweep is skipped, and the next one follows fresh I/O.
      const sweeping = setInterval(() => {
        const fired = performance.now();
        setImmediate(() => {
          if (performance.now() - fired <= SWEEP_AFTER_IO_MS) sweep();
        });
      }, SWEEP_MS);
      sweeping.unref();
    },
    closeAll() {
      server.closeAllConnections();
    },
  };
}
