import { createServer, type RequestListener, type Server } from 'node:http';

/**
 * How long a client may take to send a request: its headers within 20 s, all of it within 30 s
 * (Node's defaults, 60 s and 300 s, let a slow client hold a socket five minutes). Our requests
 * are a URL and at most a 16 kB form. The limits are checked every second, not every 30 s
 * (Node's default), so they hold to the second. Answering takes as long as it takes: these cover
 * receiving only.
 */
export const SERVER_TIMEOUTS = { headersTimeoutMs: 20_000, requestTimeoutMs: 30_000, checkEveryMs: 1_000 } as const;

/** The HTTP server of the API, with the timeouts above (or shorter ones, in tests); without a listener, add one with `on('request')`. */
export function createHttpServer(listener?: RequestListener, timeouts: { headersTimeoutMs: number; requestTimeoutMs: number; checkEveryMs: number } = SERVER_TIMEOUTS): Server {
  return createServer(
    { headersTimeout: timeouts.headersTimeoutMs, requestTimeout: timeouts.requestTimeoutMs, connectionsCheckingInterval: timeouts.checkEveryMs },
    listener,
  );
}
