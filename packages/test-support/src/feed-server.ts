import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake marketplace answers one request: a status, a body, headers and an optional delay. */
export interface FeedAnswer {
  status: number;
  body: string | Buffer;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A request the fake marketplace received. */
export interface ReceivedRequest {
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
}

/** A marketplace feed served on loopback: the edge of the outside world, faked. */
export interface FeedServer {
  /** The feed's URL (path /feed.jsonl, or the path given). */
  readonly url: string;
  /** The server's origin, `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** Requests received so far. */
  readonly requests: number;
  readonly received: readonly ReceivedRequest[];
  close(): Promise<void>;
}

/** Answers by request: the handler sees each request (path, headers) and its number from 0. */
export type FeedHandler = (request: ReceivedRequest, index: number) => FeedAnswer;

/** Serves the answers in order (the last one repeats), or whatever a handler answers. */
export async function startFeedServer(answers: readonly FeedAnswer[] | FeedHandler, path = '/feed.jsonl'): Promise<FeedServer> {
  const received: ReceivedRequest[] = [];
  const handler: FeedHandler = typeof answers === 'function' ? answers : (_request, index) => answers[Math.min(index, answers.length - 1)]!;
  const server: Server = createServer((req, res) => {
    const request = { url: req.url ?? '/', headers: req.headers };
    const answer = handler(request, received.length);
    received.push(request);
    setTimeout(() => {
      res.writeHead(answer.status, { 'content-type': 'application/x-ndjson', ...answer.headers });
      res.end(answer.body);
    }, answer.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${path}`,
    origin,
    get requests() {
      return received.length;
    },
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
