import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the fake API. */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Sends the status and headers, then waits this long before the body. */
  bodyDelayMs?: number;
  /** Closes the connection without an answer, once the request has arrived (a network failure mid-request). */
  drop?: boolean;
}

/**
 * A stand-in API on loopback that answers from a script (the last answer repeats): for the
 * edge cases a healthy server will not produce on demand (429/503 first, slow answers).
 */
export async function startFakeApi(answers: readonly Answer[]) {
  const requests: {
    at: number;
    method: string;
    url: string;
    authorization: string | undefined;
    acceptEncoding: string | undefined;
    contentType: string | undefined;
    body: string;
  }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answerRequest(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  const answerRequest = (req: IncomingMessage, body: string, res: ServerResponse) => {
    const answer = answers[Math.min(requests.length, answers.length - 1)]!;
    requests.push({
      at: Date.now(),
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      acceptEncoding: req.headers['accept-encoding'],
      contentType: req.headers['content-type'],
      body,
    });
    if (answer.drop === true) {
      req.socket.destroy();
      return;
    }
    setTimeout(() => {
      res.writeHead(answer.status, { 'content-type': 'application/json', 'x-request-id': `req_fake_${requests.length}`, ...answer.headers });
      if (answer.bodyDelayMs === undefined) res.end(JSON.stringify(answer.body ?? {}));
      else {
        res.flushHeaders();
        setTimeout(() => res.end(JSON.stringify(answer.body ?? {})), answer.bodyDelayMs);
      }
    }, answer.delayMs ?? 0);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A page envelope for the fake API. */
export const emptyPage = {
  object: 'list',
  data: [],
  pagination: { page_size: 10, page_index: 0, next_cursor: null, has_more: false },
  total: { value: 0, accuracy: 'exact' },
  meta: { api_version: 'v1', index_score: 'caveat' },
};
