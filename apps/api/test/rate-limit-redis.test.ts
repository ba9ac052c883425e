import { randomBytes } from 'node:crypto';
import { testEngines } from '@domain-index/db/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@domain-index/accounts/key-store';
import { RedisRateLimiter } from '../src/ratelimit/redis-rate-limiter';
import { OwnRedis, testRedisUrl } from '@domain-index/test-support/redis';
import { startApi, type RunningApi } from './support/start-api';

const redisUrl = testRedisUrl();
const bearer = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });

/** Sends `count` requests, at most `parallel` at a time, spread over the instances. */
async function burst(instances: RunningApi[], key: string, count: number, parallel: number): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        const response = await instances[i % instances.length]!.raw('/api/v1/stats', bearer(key));
        await response.arrayBuffer();
        statuses.push(response.status);
      }
    }),
  );
  return statuses;
}

function countBy(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip || redisUrl === undefined)(`Redis rate limiter on ${engine}`, () => {
    let instances: RunningApi[] = [];
    beforeAll(async () => {
      // one key prefix per run keeps these counters apart from anything else in the shared Redis
      const prefix = `di:test:${randomBytes(6).toString('hex')}`;
      // connected before the first request, as serve does before it listens
      const connectedLimiter = async () => {
        const limiter = new RedisRateLimiter(redisUrl!, prefix);
        expect(await limiter.connected(10_000)).toBe(true);
        return limiter;
      };
      const first = await startApi(engine, { overrides: { rateLimiter: await connectedLimiter() } });
      instances = [first];
      for (let i = 0; i < 2; i += 1) {
        instances.push(await startApi(engine, { test: first.test, overrides: { rateLimiter: await connectedLimiter() } }));
      }
    });
    afterAll(async () => {
      for (const instance of instances.slice(1)) await instance.close();
      await instances[0]?.close();
    });

    it('serves exactly the limit of a pro key across three instances under concurrency', async () => {
      const { key } = await createKey(instances[0]!.test.database, { planId: 'pro', environment: 'live' });
      const warmUp = await burst(instances, key, 850, 16);
      // counted by status, so a failure says which answers came instead of 200
      expect(countBy(warmUp)).toEqual({ 200: 850 });
      const statuses = await burst(instances, key, 300, 300);
      expect(statuses.filter((status) => status === 200)).toHaveLength(150);
      expect(statuses.filter((status) => status === 429)).toHaveLength(150);
    });
  });

  describe.skipIf(skip || redisUrl === undefined)(`Redis outage on ${engine}`, () => {
    let redis: OwnRedis;
    let api: RunningApi;
    beforeAll(async () => {
      redis = await OwnRedis.start();
      const limiter = new RedisRateLimiter(redis.url);
      expect(await limiter.connected(10_000)).toBe(true);
      api = await startApi(engine, { overrides: { rateLimiter: limiter } });
    });
    afterAll(async () => {
      await api.close();
      await redis.stop();
    });

    it('refuses with 503 rate_limit_unavailable while Redis is down and resumes when it returns', async () => {
      expect((await api.get('/api/v1/stats')).status).toBe(200);
      await redis.stop();
      const down = await api.get('/api/v1/stats');
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
      // the limit is known (the plan resolved), the live usage is not
      expect(down.headers.get('x-ratelimit-limit')).not.toBeNull();
      expect(down.headers.get('x-ratelimit-remaining')).toBeNull();
      expect(await down.json()).toEqual({
        error: {
          code: 'rate_limit_unavailable',
          message: 'the rate limiter is unavailable, so the request is refused rather than served unmetered; please retry',
        },
      });
      await redis.resume();
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i += 1) {
        await sleep(100);
        status = (await api.get('/api/v1/stats')).status;
      }
      expect(status).toBe(200);
      // The new Redis process has none of the limiter's scripts loaded: counting goes on.
      const used = (await api.get('/api/v1/stats')).headers.get('x-ratelimit-remaining');
      const next = (await api.get('/api/v1/stats')).headers.get('x-ratelimit-remaining');
      expect(Number(next)).toBe(Number(used) - 1);
    });
  });
}
