import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got: its headers and its body exactly as sent. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers a request: a status and a body, or nothing until `release` (a receiver that hangs). */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** A webhook receiver on loopback: the customer's server, faked at the edge of the outside world. */
export interface WebhookReceiver {
  readonly url: string;
  readonly received: Received[];
  /** Answers every request from now on by `answer(request index)`. */
  answerWith(answer: (index: number, request: Received) => Answer): void;
  /** Lets the hanging requests go (their sockets are destroyed: the sender sees no answer). */
  releaseHanging(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  let answer: (index: number, request: Received) => Answer = () => ({ status: 200, body: '{"ok":true}' });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
      const decided = answer(received.length - 1, request);
      if (decided === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(decided.status, { 'content-type': 'application/json', ...decided.headers });
      res.end(decided.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/domain-index`,
    received,
    answerWith: (next) => {
      answer = next;
    },
    releaseHanging: () => {
      for (const res of hanging.splice(0)) res.socket?.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
