import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** What a shutdown calls once the server has stopped accepting connections. */
export interface ConnectionDrain {
  /** Closes idle connections now, and every other one as soon as its response is written. */
  drain(): void;
}

/**
 * Lets a shutdown close keep-alive connections as their responses finish. `server.close()`
 * closes only idle connections: one that carried a request in flight would stay open for the
 * whole keep-alive timeout after its response (65 s by default, see KEEP_ALIVE_TIMEOUT_MS),
 * and the process with it until the shutdown timeout cut it. Once draining, a response not
 * yet sent tells its client `Connection: close`, and a connection left idle is closed.
 */
export function trackConnections(server: Server): ConnectionDrain {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    if (draining) closeAfter(res);
    res.once('close', () => {
      inFlight.delete(res);
      // a response that had already sent its headers leaves its connection idle: close it
      if (draining) server.closeIdleConnections();
    });
  });
  return {
    drain() {
      draining = true;
      for (const res of inFlight) closeAfter(res);
      server.closeIdleConnections();
    },
  };
}
