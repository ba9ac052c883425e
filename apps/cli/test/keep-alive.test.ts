import { Agent, get, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@domain-index/accounts/key-store';
import { holdTableLock, untilWaiting, type HeldLock } from './support/locks';
import { startServe, type ServeProcess } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';

const postgresSkipped = postgresTestEngine().skip;

/** `domain-index serve` (one process) on the test PostgreSQL, with the given environment. */
function serve(url: string, port: number, env: Record<string, string> = {}): ServeProcess {
  return startServe({
    DATABASE_URL: url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...env,
  });
}

/** A GET over `agent`; resolves with the response (body read) and the local port of its socket. */
function request(
  port: number,
  path: string,
  key: string,
  agent: Agent,
): Promise<{ res: IncomingMessage; localPort: number | undefined; socket: Socket }> {
  return new Promise((resolve, reject) => {
    get(
      { host: '127.0.0.1', port, path, agent, headers: { Authorization: `Bearer ${key}` } },
      (res) => {
        const socket = res.socket;
        const localPort = socket.localPort;
        res.resume();
        res.once('end', () => resolve({ res, localPort, socket }));
      },
    ).once('error', reject);
  });
}

describe.skipIf(postgresSkipped)('keep-alive connections of serve', () => {
  let test: TestDatabase;
  let key: string;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    ({ key } = await createKey(test.database, { planId: 'pro', environment: 'test' }));
  });
  afterAll(async () => {
    await test.dispose();
  });

  it("keeps an idle connection open past Node's 5 s default, for a balancer that reuses it", async () => {
    const port = await freePort();
    const server = serve(test.url!, port);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await until('it listens', () => server.output().includes('listening on'));
      const first = await request(port, '/api/v1/stats', key, agent);
      expect(first.res.statusCode).toBe(200);
      expect(first.res.headers['keep-alive']).toBe('timeout=65');
      await sleep(6_000);
      const second = await request(port, '/api/v1/stats', key, agent);
      expect(second.res.statusCode).toBe(200);
      // the same socket: the server had not closed it
      expect(second.localPort).toBe(first.localPort);
    } finally {
      agent.destroy();
      server.child.kill('SIGKILL');
    }
  });

  it('leaves an idle connection open for a moment when the listener closes: a request already on its way is answered, with Connection: close', async () => {
    const port = await freePort();
    const server = serve(test.url!, port, { SHUTDOWN_DELAY_MS: '0', LOG_LEVEL: 'info' });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await until('it listens', () => server.output().includes('listening on'));
      const first = await request(port, '/api/v1/stats', key, agent);
      expect(first.res.statusCode).toBe(200);
      server.child.kill('SIGTERM');
      await until('the listener has closed', () => server.output().includes('shutting down'));
      // a balancer that picked this idle connection just before the close: Node's own close
      // would have reset it under the request
      const second = await request(port, '/api/v1/stats', key, agent);
      expect(second.res.statusCode).toBe(200);
      expect(second.localPort).toBe(first.localPort);
      expect(second.res.headers.connection).toBe('close');
      // and the process does not wait out the 65 s keep-alive of a connection nobody uses
      const code = await Promise.race([
        server.exited,
        sleep(10_000, 'still running 10 s after its last response'),
      ]);
      expect(code).toBe(0);
    } finally {
      agent.destroy();
      server.child.kill('SIGKILL');
    }
  });

  it('closes a connection nobody uses once it has been idle a second after the listener closed', async () => {
    const port = await freePort();
    const server = serve(test.url!, port, {
      SHUTDOWN_DELAY_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'info',
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await until('it listens', () => server.output().includes('listening on'));
      const { res, socket } = await request(port, '/api/v1/stats', key, agent);
      const answered = Date.now();
      expect(res.statusCode).toBe(200);
      const closed = new Promise<number>((resolve) =>
        socket.once('close', () => resolve(Date.now())),
      );
      server.child.kill('SIGTERM');
      await until('the listener has closed', () => server.output().includes('shutting down'));
      const at = await Promise.race([closed, sleep(10_000, -1)]);
      expect(at).toBeGreaterThan(0);
      // not at once (a request could be on its way), not after the keep-alive's 65 s: once idle
      // a second, counted from the answer (the server's clock started as it sent it, a moment
      // before this side had it)
      expect(at - answered).toBeGreaterThanOrEqual(900);
      expect(await Promise.race([server.exited, sleep(10_000, 'still running')])).toBe(0);
    } finally {
      agent.destroy();
      server.child.kill('SIGKILL');
    }
  });

  it('answers a request in flight at SIGTERM with Connection: close, then exits without waiting for the keep-alive', async () => {
    const port = await freePort();
    // neither timeout may be what ends the process: the drained connection must
    const server = serve(test.url!, port, {
      SHUTDOWN_TIMEOUT_MS: '60000',
      QUERY_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'info',
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let lock: HeldLock | undefined;
    try {
      await until('it listens', () => server.output().includes('listening on'));
      expect((await request(port, '/api/v1/domains?status=all', key, agent)).res.statusCode).toBe(
        200,
      );
      // the connection is open and idle; a search on it now waits on the lock
      lock = await holdTableLock(test.url!);
      const inFlight = request(port, '/api/v1/domains?status=all&search=zzq', key, agent);
      await untilWaiting(test.database, 'listings');
      server.child.kill('SIGTERM');
      // the listener is closing while the search still waits
      await until('serve is shutting down', () => server.output().includes('shutting down'));
      const released = Date.now();
      await lock.release();
      lock = undefined;
      const { res } = await inFlight;
      expect(res.statusCode).toBe(200);
      expect(res.headers.connection).toBe('close');
      const code = await Promise.race([
        server.exited,
        sleep(10_000, 'still running 10 s after its last response'),
      ]);
      expect(code).toBe(0);
      expect(Date.now() - released).toBeLessThan(10_000);
    } finally {
      await lock?.release();
      agent.destroy();
      server.child.kill('SIGKILL');
    }
  });
});
