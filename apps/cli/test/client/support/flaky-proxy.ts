import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does to one request instead of forwarding it. */
export type Fault =
  /** Answers this status with the API's error envelope and these headers. */
  | { status: number; code: string; headers?: Record<string, string> }
  /** Closes the connection without an answer (a network failure). */
  | { drop: true }
  /** Never answers (until the proxy closes). */
  | { hang: true };

/**
 * A loopback proxy in front of the real API, standing in for a load balancer: it forwards each
 * request unchanged, except the next ones a test scripts with `fail(...)`, which it answers with
 * an error status, a dropped connection or silence. It records when each request arrived.
 */
export async function startFlakyProxy(target: string) {
  const requests: { at: number; url: string; outcome: 'forwarded' | 'failed' | 'dropped' | 'hung' }[] = [];
  const faults: Fault[] = [];
  const hung: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const fault = faults.shift();
    const url = req.url ?? '/';
    if (fault === undefined) {
      requests.push({ at: Date.now(), url, outcome: 'forwarded' });
      const sent: Record<string, string> = { accept: 'application/json' };
      if (req.headers.authorization !== undefined) sent.authorization = req.headers.authorization;
      fetch(`${target}${url}`, { headers: sent })
        .then(async (upstream) => {
          const body = Buffer.from(await upstream.arrayBuffer());
          const headers: Record<string, string> = { 'content-type': upstream.headers.get('content-type') ?? 'application/json' };
          upstream.headers.forEach((value, name) => {
            if (name.startsWith('x-') || name === 'retry-after') headers[name] = value;
          });
          res.writeHead(upstream.status, headers);
          res.end(body);
        })
        .catch(() => res.destroy());
    } else if ('drop' in fault) {
      requests.push({ at: Date.now(), url, outcome: 'dropped' });
      req.socket.destroy();
    } else if ('hang' in fault) {
      requests.push({ at: Date.now(), url, outcome: 'hung' });
      hung.push(res);
    } else {
      requests.push({ at: Date.now(), url, outcome: 'failed' });
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(JSON.stringify({ error: { code: fault.code, message: `scripted ${fault.status}` } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    /** The next requests get these faults, in order; later ones are forwarded again. */
    fail(...next: Fault[]) {
      faults.push(...next);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hung) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
