import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DRAIN_IDLE_CLOSE_MS, trackConnections, type ConnectionDrain } from './drain-connections';

/** A keep-alive client on one raw connection, so the test decides when each request is written. */
interface RawClient {
  socket: Socket;
  /** Writes a GET now; resolves with the response's head, or rejects when the connection ends first. */
  get(path: string): Promise<string>;
}

function rawClient(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve({ socket, get }));
    socket.once('error', reject);
    let received = '';
    let waiting: { resolve: (head: string) => void; reject: (error: Error) => void } | undefined;
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      // every answer here has an empty body: the head is the whole response
      if (end >= 0 && waiting !== undefined) {
        const head = received.slice(0, end);
        received = received.slice(end + 4);
        waiting.resolve(head);
        waiting = undefined;
      }
    });
    socket.on('error', (error) => waiting?.reject(error));
    socket.on('close', () => waiting?.reject(new Error('the connection closed before an answer')));
    function get(path: string): Promise<string> {
      return new Promise((resolveHead, rejectHead) => {
        waiting = { resolve: resolveHead, reject: rejectHead };
        socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      });
    }
  });
}

/** Holds this process's event loop, as a garbage collection or a starved CPU would. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // nothing: the point is that no timer and no I/O callback runs meanwhile
  }
}

describe('a draining server closes idle keep-alive connections', () => {
  let server: Server | undefined;
  let drain: ConnectionDrain | undefined;
  const clients: Socket[] = [];

  afterEach(async () => {
    for (const socket of clients.splice(0)) socket.destroy();
    drain?.closeAll();
    await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
  });

  async function start(): Promise<number> {
    server = createServer((_req, res) => res.writeHead(204).end());
    drain = trackConnections(server);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  it('answers a request that arrived while the process was stalled, on a connection idle past the limit', async () => {
    const port = await start();
    const client = await rawClient(port);
    clients.push(client.socket);
    expect(await client.get('/first')).toMatch(/^HTTP\/1\.1 204/);
    let closed = false;
    drain!.close(() => (closed = true));
    // The balancer sends its next request on the connection, and then the server's process is
    // held past the idle limit before it reads it: the request is in the socket, unread, on a
    // connection whose last answer was sent longer ago than the limit. Closing it now would reset
    // a request the balancer has already sent.
    const second = client.get('/second');
    stall(DRAIN_IDLE_CLOSE_MS + 300);
    const head = await second;
    expect(head).toMatch(/^HTTP\/1\.1 204/);
    // it is the drain's last answer on that connection, which then closes
    expect(head).toMatch(/\r\nConnection: close/i);
    await new Promise<void>((resolve) => client.socket.once('close', () => resolve()));
    await expect.poll(() => closed).toBe(true);
  });

  it('closes a connection left idle past the limit, so the drain ends', async () => {
    const port = await start();
    const client = await rawClient(port);
    clients.push(client.socket);
    expect(await client.get('/only')).toMatch(/^HTTP\/1\.1 204/);
    const started = performance.now();
    let closedAt: number | undefined;
    drain!.close(() => (closedAt = performance.now()));
    await new Promise<void>((resolve) => client.socket.once('close', () => resolve()));
    await expect.poll(() => closedAt, { timeout: 10_000 }).toBeDefined();
    // long before the 65 s keep-alive the server keeps otherwise (the margin is a loaded machine's)
    expect(closedAt! - started).toBeLessThan(DRAIN_IDLE_CLOSE_MS + 9_000);
  });

  it('leaves open a connection idle less than the limit: a request on its way there is answered', async () => {
    const port = await start();
    const client = await rawClient(port);
    clients.push(client.socket);
    expect(await client.get('/first')).toMatch(/^HTTP\/1\.1 204/);
    drain!.close(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, DRAIN_IDLE_CLOSE_MS / 2));
    expect(await client.get('/second')).toMatch(/^HTTP\/1\.1 204/);
  });
});
