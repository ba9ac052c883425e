import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from '@domain-index/db';
import { createTestDatabase, postgresTestEngine, testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@domain-index/accounts/key-store';
import { ownClustersSkipped, startCluster, type PostgresCluster } from '@domain-index/db/clusters';
import { holdTableLock, untilWaiting, type HeldLock } from './support/locks';
import { startServe } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { parseExposition, total } from './support/prometheus';
import { startApi } from '@domain-index/api/test/support/start-api';

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`liveness and readiness on ${engine}`, () => {
    it('answer without a key, outside the access log, in one short line', async () => {
      const api = await startApi(engine);
      for (const [path, body] of [
        ['/livez', 'ok\n'],
        ['/readyz', 'ready\n'],
      ] as const) {
        const response = await api.raw(path);
        expect(response.status, path).toBe(200);
        expect(await response.text()).toBe(body);
        expect(response.headers.get('x-ratelimit-limit')).toBeNull();
      }
      expect(api.logLines.filter((line) => line.includes('/livez') || line.includes('/readyz'))).toEqual([]);
      await api.close();
    });
  });
}

describe.skipIf(ownClustersSkipped())('readiness while PostgreSQL is stopped', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(async () => {
    await cluster.destroy();
  });

  it('is 503 on the API port and the admin listener (domain_index_ready 0) while the server is down, 200 (1) again once it is back; liveness stays 200', { timeout: 240_000 }, async () => {
    const [port, adminPort] = [await freePort(), await freePort()];
    const server = startServe({ DATABASE_URL: cluster.url(), PORT: String(port), HOST: '127.0.0.1', ADMIN_PORT: String(adminPort), LOG_LEVEL: 'warn' });
    const status = async (url: string) => (await fetch(url)).status;
    const ready = async () => total(parseExposition(await (await fetch(`${admin}/metrics`)).text()), 'domain_index_ready');
    const api = `http://127.0.0.1:${port}`;
    const admin = `http://127.0.0.1:${adminPort}`;
    try {
      await until('it listens', () => {
        if (server.child.exitCode !== null) throw new Error(`serve exited early:\n${server.output()}`);
        return server.stdout().includes('listening on');
      }, 60_000);
      for (const base of [api, admin]) expect(await status(`${base}/readyz`)).toBe(200);
      expect(await ready()).toBe(1);
      await cluster.stop();
      for (const base of [api, admin]) {
        await until(`readiness fails at ${base}`, async () => (await status(`${base}/readyz`)) === 503, 10_000);
        const refused = await fetch(`${base}/readyz`);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(await refused.text()).toBe('not ready: database unreachable\n');
        expect(await status(`${base}/livez`)).toBe(200);
      }
      expect(await ready()).toBe(0);
      const health = await fetch(`${admin}/health`);
      expect(health.status).toBe(503);
      expect(((await health.json()) as { checks: Record<string, [{ status: string }]> }).checks['postgresql:responseTime']![0].status).toBe('fail');
      await cluster.start();
      for (const base of [api, admin]) {
        await until(`readiness returns at ${base}`, async () => (await status(`${base}/readyz`)) === 200, 20_000);
        expect(await status(`${base}/livez`)).toBe(200);
      }
      expect(await ready()).toBe(1);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describe.skipIf(postgresTestEngine().skip)('readiness while searches fill the pool', () => {
  it('stays 200 while every connection of the API pool waits on a slow search: the probe has a connection of its own', { timeout: 240_000 }, async () => {
    const test = await createTestDatabase('postgres');
    const { key } = await createKey(test.database, { planId: 'pro', environment: 'test' });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = startServe({ DATABASE_URL: test.url!, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', QUERY_TIMEOUT_MS: '60000' });
    let lock: HeldLock | undefined;
    try {
      await until('it listens', () => server.stdout().includes('listening on'), 60_000);
      lock = await holdTableLock(test.url!);
      // more searches than the pool's 10 connections, every one waiting on the lock
      const searches = Array.from({ length: 14 }, (_, i) => fetch(`${base}/api/v1/domains?status=all&search=held${i}`, { headers: { authorization: `Bearer ${key}` } }));
      await untilWaiting(test.database, 'listings', 10);
      const [{ full }] = (await test.database.rows<{ full: string }>(sql`select clock_timestamp()::text as full`)) as [{ full: string }];
      // readiness answers from a check it repeats at most once a second: asked until the database
      // shows a check made after the pool filled, every answer must be 200
      const readiness: number[] = [];
      await until('readiness has checked the database since the pool filled', async () => {
        readiness.push((await fetch(`${base}/readyz`)).status);
        const [row] = await test.database.rows<{ n: number }>(
          sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and query = 'select 1 as ok' and state = 'idle' and query_start > ${full}::timestamptz`,
        );
        return (row?.n ?? 0) > 0;
      }, 20_000);
      readiness.push((await fetch(`${base}/readyz`)).status);
      expect(new Set(readiness)).toEqual(new Set([200]));
      await lock.release();
      lock = undefined;
      for (const response of await Promise.all(searches)) expect(response.status).toBe(200);
    } finally {
      await lock?.release();
      server.child.kill('SIGKILL');
      await test.dispose();
    }
  });
});

describe.skipIf(postgresTestEngine().skip)('readiness from SIGTERM until the listener closes', () => {
  it('is 503 from SIGTERM until connections are refused, while a request in flight at SIGTERM completes; liveness stays 200', { timeout: 240_000 }, async () => {
    const test = await createTestDatabase('postgres');
    const { key } = await createKey(test.database, { planId: 'pro', environment: 'test' });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // neither timeout may end the held request: the shutdown must let it finish
    const server = startServe({ DATABASE_URL: test.url!, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', SHUTDOWN_DELAY_MS: '2000', SHUTDOWN_TIMEOUT_MS: '60000', QUERY_TIMEOUT_MS: '60000' });
    let lock: HeldLock | undefined;
    try {
      await until('it listens', () => server.stdout().includes('listening on'), 60_000);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      // a search that waits on a lock is in flight when SIGTERM arrives
      lock = await holdTableLock(test.url!);
      const inFlight = fetch(`${base}/api/v1/domains?status=all&search=zzq`, { headers: { authorization: `Bearer ${key}` } });
      await untilWaiting(test.database, 'listings');
      server.child.kill('SIGTERM');
      await until('serve says it is draining', () => server.output().includes('draining'), 60_000);
      // readiness and liveness, polled on fresh connections, from SIGTERM until the listener
      // closes; a request the listener does not take ends the polling, any answer is recorded
      const readiness: number[] = [];
      const liveness: number[] = [];
      const ask = (path: string) => fetch(`${base}${path}`, { headers: { connection: 'close' } }).then((r) => r.status, () => undefined);
      const polling = (async () => {
        for (;;) {
          const ready = await ask('/readyz');
          if (ready === undefined) return;
          readiness.push(ready);
          const live = await ask('/livez');
          if (live === undefined) return;
          liveness.push(live);
          await sleep(20);
        }
      })();
      await polling;
      // the polling ended because the listener closed: new connections are refused from now on
      expect(await ask('/livez')).toBeUndefined();
      expect(readiness.length).toBeGreaterThan(0);
      expect(new Set(readiness)).toEqual(new Set([503]));
      expect(new Set(liveness)).toEqual(new Set([200]));
      // the search that was in flight at SIGTERM is still answered, after the listener closed
      await lock.release();
      lock = undefined;
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: unknown[] }).data).toEqual([]);
      expect(await Promise.race([server.exited, sleep(20_000, 'still running' as const)])).toBe(0);
    } finally {
      await lock?.release();
      server.child.kill('SIGKILL');
      await test.dispose();
    }
  });
});

describe('draining on SIGTERM', () => {
  const dir = mkdtempSync(join(tmpdir(), 'di-probes-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails readiness at once, keeps serving requests through SHUTDOWN_DELAY_MS, then stops', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = startServe({ DATA_DIR: join(dir, 'data'), PORT: String(port), LOG_LEVEL: 'info', SHUTDOWN_DELAY_MS: '10000' });
    try {
      await until('it listens', () => {
        if (server.child.exitCode !== null) throw new Error(`serve exited early:\n${server.output()}`);
        return server.stdout().includes('listening on');
      }, 90_000);
      const key = /(dix_(?:live|test)_\w+)/.exec(server.stdout())![1]!;
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      server.child.kill('SIGTERM');
      // readiness fails before this line is logged
      await until('serve says it is draining', () => server.output().includes('draining'), 60_000);
      const draining = await fetch(`${base}/readyz`);
      expect(draining.status).toBe(503);
      expect(await draining.text()).toBe('not ready: draining\n');
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      // requests arriving while the balancer catches up are still answered in full
      const answered = await fetch(`${base}/api/v1/domains?limit=200`, { headers: { authorization: `Bearer ${key}` } });
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
      expect(server.child.exitCode).toBeNull();
      // the delay is long enough for the checks above on a loaded machine; then it stops
      const code = await Promise.race([server.exited, sleep(40_000, 'still running' as const)]);
      expect(code).toBe(0);
      expect(server.output()).toContain('draining');
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
