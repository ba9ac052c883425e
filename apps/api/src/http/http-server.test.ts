import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, SERVER_TIMEOUTS } from './http-server';

/** What a raw client reads until the server closes its connection, and when that was. */
function readUntilClosed(socket: Socket): Promise<{ text: string; closedAt: number }> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve({ text, closedAt: performance.now() }));
  });
}

describe('the HTTP server', () => {
  const servers: ReturnType<typeof createHttpServer>[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  /** A server with short limits, answering 200 to whatever arrives whole. */
  async function start(headersTimeoutMs: number, requestTimeoutMs: number): Promise<number> {
    const server = createHttpServer(
      (req, res) => {
        req.resume();
        req.on('end', () => res.end('ok'));
      },
      { headersTimeoutMs, requestTimeoutMs, checkEveryMs: 100 },
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('bounds receiving a request: 20 s for the headers, 30 s for all of it', () => {
    expect(SERVER_TIMEOUTS).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 30_000, checkEveryMs: 1_000 });
  });

  it('answers 408 and closes a connection whose body trickles in past the request timeout', async () => {
    const port = await start(500, 1_000);
    const socket = connect(port, '127.0.0.1');
    const closed = readUntilClosed(socket);
    const started = performance.now();
    socket.write('POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n');
    // a byte every 100 ms: never idle, never done
    const trickle = setInterval(() => socket.write('a'), 100);
    const { text, closedAt } = await closed;
    clearInterval(trickle);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAt - started).toBeGreaterThanOrEqual(900);
    // closed by the timeout, not by the body's end, 100 s away at this pace (a loaded machine's margin)
    expect(closedAt - started).toBeLessThan(15_000);
  });

  it('answers 408 and closes a connection whose headers never end', async () => {
    const port = await start(500, 30_000);
    const socket = connect(port, '127.0.0.1');
    const closed = readUntilClosed(socket);
    const started = performance.now();
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => socket.write('X-Slow: 1\r\n'), 100);
    const { text, closedAt } = await closed;
    clearInterval(trickle);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    // by the headers' 500 ms timeout, not the request's 30 s (a loaded machine's margin)
    expect(closedAt - started).toBeLessThan(15_000);
  });

  it('serves a request that arrives in time', async () => {
    const port = await start(500, 1_000);
    expect(await (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'a=1' })).text()).toBe('ok');
  });
});
