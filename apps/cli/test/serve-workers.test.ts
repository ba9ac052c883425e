import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@domain-index/accounts/key-store';
import { startServe, type ServeProcess } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { testRedisUrl } from '@domain-index/test-support/redis';

const redisUrl = testRedisUrl();
const postgresSkipped = postgresTestEngine().skip;

/** The pids of a process's children, from /proc. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `domain-index serve` with WORKERS (2 unless given) on the test PostgreSQL and Redis. */
function serveWorkers(url: string, port: number, workers = 2): ServeProcess {
  const env = { WORKERS: String(workers), DATABASE_URL: url, REDIS_URL: redisUrl!, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  return startServe(env, { detached: true });
}

describe.skipIf(postgresSkipped || redisUrl === undefined)('serve with WORKERS=2 on PostgreSQL and Redis', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await test.dispose();
  });

  const stats = (port: number, key: string) => fetch(`http://127.0.0.1:${port}/api/v1/stats`, { headers: { Authorization: `Bearer ${key}` } });

  it('runs two API processes on one port and replaces them when both die at once', async () => {
    const { key } = await createKey(test.database, { planId: 'pro', environment: 'test' });
    const port = await freePort();
    const server = serveWorkers(test.url!, port);
    const primary = server.child.pid!;
    try {
      await until('it listens', () => server.output().includes('listening on'));
      expect(server.output()).toContain(`Domain Index API listening on http://127.0.0.1:${port}/api/v1 (postgres, 2 workers)`);
      const workers = childrenOf(primary);
      expect(workers).toHaveLength(2);
      for (let i = 0; i < 6; i += 1) expect((await stats(port, key)).status).toBe(200);

      // every worker gone at once (an out-of-memory kill, a crash every worker hits)
      for (const pid of workers) process.kill(pid, 'SIGKILL');
      await until('two new workers replaced the killed ones', () => {
        const now = childrenOf(primary);
        return now.length === 2 && now.every((pid) => !workers.includes(pid));
      });
      // only the new workers exist, so these answers are theirs
      // (until they listen, connections fail: nothing serves them)
      await until('the new workers answer', async () => {
        const answers = await Promise.all([stats(port, key), stats(port, key)]).catch(() => []);
        return answers.length === 2 && answers.every((r) => r.status === 200);
      });

      // a supervisor's stop: SIGTERM to the whole process group reaches every worker twice
      const replaced = childrenOf(primary);
      process.kill(-primary, 'SIGTERM');
      // 0 only if every worker stopped cleanly rather than being killed by the second signal
      expect(await server.exited).toBe(0);
      for (const pid of replaced) expect(alive(pid), `worker ${pid} outlived its primary`).toBe(false);
      expect(server.output()).not.toContain('did not stop cleanly');
    } finally {
      for (const pid of childrenOf(primary)) process.kill(pid, 'SIGKILL');
      server.child.kill('SIGKILL');
    }
  });

  it('stops every worker gracefully when only the primary gets SIGTERM', async () => {
    const port = await freePort();
    const server = serveWorkers(test.url!, port);
    const primary = server.child.pid!;
    try {
      await until('it listens', () => server.output().includes('listening on'));
      // the workers this test is about: without them the checks below would hold vacuously
      const workers = childrenOf(primary);
      expect(workers).toHaveLength(2);
      expect(workers.every(alive)).toBe(true);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      for (const pid of workers) expect(alive(pid), `worker ${pid} outlived its primary`).toBe(false);
    } finally {
      for (const pid of childrenOf(primary)) process.kill(pid, 'SIGKILL');
      server.child.kill('SIGKILL');
    }
  });

  it('fails start-up with one line and a non-zero exit when the port is taken, with one process or several', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      for (const workers of [1, 2]) {
        const server = serveWorkers(test.url!, port, workers);
        try {
          const code = await Promise.race([server.exited, sleep(60_000, 'still running after 60 s')]);
          expect(code, `WORKERS=${workers}`).toBeTypeOf('number');
          expect(code, `WORKERS=${workers}`).not.toBe(0);
          expect(server.output()).toContain(`domain-index: cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
          expect(server.output()).not.toContain('listening on');
        } finally {
          // a process that hangs instead of exiting must not outlive the test
          for (const pid of childrenOf(server.child.pid!)) process.kill(pid, 'SIGKILL');
          server.child.kill('SIGKILL');
        }
      }
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
