import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake marketplace answers one request: a status, a body and an optional delay. */
export interface FeedAnswer {
  status: number;
  body: string;
  delayMs?: number;
}

/** A marketplace feed served on loopback: the edge of the outside world, faked. */
export interface FeedServer {
  readonly url: string;
  /** Requests received so far. */
  readonly requests: number;
  close(): Promise<void>;
}

/** Serves the answers in order; the last one repeats. */
export async function startFeedServer(answers: readonly FeedAnswer[]): Promise<FeedServer> {
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    const answer = answers[Math.min(requests, answers.length - 1)]!;
    requests += 1;
    setTimeout(() => {
      res.writeHead(answer.status, { 'content-type': 'application/x-ndjson' });
      res.end(answer.body);
    }, answer.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/feed.jsonl`,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
