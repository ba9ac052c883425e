import { apiKeys, eq, sql } from '@domain-index/db';
import { testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '@domain-index/accounts/api-key';
import { createKey, revokeKey } from '@domain-index/accounts/key-store';
import type { Clock } from '@domain-index/runtime/clock';
import { until } from '@domain-index/test-support/waiting';
import { startApi, type RunningApi } from './support/start-api';

const bearer = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });
/** Headers that legitimately differ between two otherwise identical responses. */
const VARYING = new Set(['x-request-id', 'date']);
const comparable = async (response: Response) => ({
  status: response.status,
  body: await response.text(),
  headers: [...response.headers.entries()].filter(([name]) => !VARYING.has(name)),
});

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`authentication, plans and rate limits on ${engine}`, () => {
    let api: RunningApi;
    // 12:34:56 UTC: the hourly window ends at 13:00:00, 1,504 s later.
    let now = Date.parse('2026-11-21T12:34:56.000Z');
    const clock: Clock = { now: () => new Date(now) };
    beforeAll(async () => {
      api = await startApi(engine, { clock });
    });
    afterAll(async () => {
      await api.close();
    });

    it('answers no Authorization header with 401 missing_api_key', async () => {
      const response = await api.raw('/api/v1/stats');
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="domain-index"');
      expect(await response.json()).toEqual({
        error: { code: 'missing_api_key', message: 'send your API key in the header Authorization: Bearer <API_KEY>' },
      });
    });

    it('answers a header that is not Bearer plus a key with 401 invalid_authorization_header', async () => {
      for (const value of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Token ${api.apiKey}`, `Bearer ${api.apiKey} extra`, api.apiKey]) {
        const response = await api.raw('/api/v1/stats', { headers: { Authorization: value } });
        expect(response.status, value).toBe(401);
        expect(await response.json()).toMatchObject({ error: { code: 'invalid_authorization_header' } });
      }
    });

    it('answers malformed, unknown and revoked keys identically, byte for byte', async () => {
      const { id, key: revoked } = await createKey(api.test.database, { planId: 'free', environment: 'live' });
      await revokeKey(api.test.database, id, 'test', clock.now());
      const unknown = generateApiKey('live');
      const badChecksum = `${unknown.slice(0, -1)}${unknown.endsWith('A') ? 'B' : 'A'}`;
      const answers = await Promise.all(
        ['not-a-key', 'dix_live_short', badChecksum, unknown, revoked].map(async (key) => comparable(await api.raw('/api/v1/domains', bearer(key)))),
      );
      expect(answers[0]).toMatchObject({ status: 401, body: '{"error":{"code":"invalid_api_key","message":"the API key is not valid"}}' });
      for (const answer of answers) expect(answer).toEqual(answers[0]);
    });

    it('applies a revocation on the very next request, on every instance', async () => {
      const { id, key } = await createKey(api.test.database, { planId: 'pro', environment: 'live' });
      const other = await startApi(engine, { test: api.test, clock });
      expect((await api.raw('/api/v1/stats', bearer(key))).status).toBe(200);
      expect((await other.raw('/api/v1/stats', bearer(key))).status).toBe(200);
      await revokeKey(api.test.database, id, 'test', clock.now());
      expect((await api.raw('/api/v1/stats', bearer(key))).status).toBe(401);
      expect((await other.raw('/api/v1/stats', bearer(key))).status).toBe(401);
      await other.close();
    });

    it('rejects a key sent in the URL and revokes it as leaked', async () => {
      const { id, key } = await createKey(api.test.database, { planId: 'pro', environment: 'live' });
      const response = await api.raw(`/api/v1/domains?api_key=${key}`, bearer(key));
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          code: 'api_key_in_query',
          message: 'api_key must not be sent in the URL: any valid key sent in a URL has been revoked; create a new one and send it in the Authorization header',
          param: 'api_key',
        },
      });
      const [row] = await api.test.database.db.select().from(apiKeys).where(eq(apiKeys.id, id));
      expect(row?.revokedAt).not.toBeNull();
      expect(row?.revokedReason).toBe('leaked: sent in the URL query parameter api_key');
      expect((await api.raw('/api/v1/stats', bearer(key))).status).toBe(401);
    });

    it('answers 503 plan_lookup_unavailable when the plan cannot be resolved', async () => {
      const { key } = await createKey(api.test.database, { planId: 'pro', environment: 'live' });
      // a fresh instance has no plan cached: with the plans unreadable it must refuse, not guess
      const fresh = await startApi(engine, { test: api.test, clock });
      await api.test.database.rows(sql`alter table plans rename to plans_gone`);
      try {
        const response = await fresh.raw('/api/v1/stats', bearer(key));
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await response.json()).toEqual({
          error: { code: 'plan_lookup_unavailable', message: "the key's plan could not be resolved, so its limit is unknown; please retry" },
        });
      } finally {
        await api.test.database.rows(sql`alter table plans_gone rename to plans`);
        await fresh.close();
      }
    });

    it('serves 60 requests of a free key per hour and answers the 61st with 429 until the window ends', async () => {
      const { key } = await createKey(api.test.database, { planId: 'free', environment: 'live' });
      const resetAt = String(Date.parse('2026-11-21T13:00:00.000Z') / 1000);
      for (let i = 1; i <= 60; i += 1) {
        const response = await api.raw(i % 2 === 0 ? '/api/v1/stats' : '/api/v1/domains?limit=bad', bearer(key));
        // a request that fails validation still counts, and still carries the headers
        expect(response.status).toBe(i % 2 === 0 ? 200 : 400);
        expect(response.headers.get('x-ratelimit-limit')).toBe('60');
        expect(response.headers.get('x-ratelimit-window')).toBe('3600');
        expect(response.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
        expect(response.headers.get('x-ratelimit-reset')).toBe(resetAt);
        expect(response.headers.get('ratelimit-policy')).toBe('"hourly";q=60;w=3600');
        expect(response.headers.get('ratelimit')).toBe(`"hourly";r=${60 - i};t=1504`);
      }
      const limited = await api.raw('/api/v1/stats', bearer(key));
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('1504');
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('x-ratelimit-reset')).toBe(resetAt);
      expect(await limited.json()).toEqual({
        error: { code: 'rate_limited', message: 'this key has used its 60 requests of the current window; retry after 1504 s' },
      });
      now = Date.parse('2026-11-21T12:59:59.000Z');
      const stillLimited = await api.raw('/api/v1/stats', bearer(key));
      expect(stillLimited.headers.get('retry-after')).toBe('1');
      // the window rolls over at 13:00:00: a fresh allowance, a new reset
      now = Date.parse('2026-11-21T13:00:00.000Z');
      const next = await api.raw('/api/v1/stats', bearer(key));
      expect(next.status).toBe(200);
      expect(next.headers.get('x-ratelimit-remaining')).toBe('59');
      expect(next.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-11-21T14:00:00.000Z') / 1000));
    });

    it('sends no rate-limit headers before the key is known', async () => {
      const response = await api.raw('/api/v1/stats');
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    });

    it('never writes a key or an Authorization value to the logs', async () => {
      const { key } = await createKey(api.test.database, { planId: 'pro', environment: 'live' });
      await api.raw('/api/v1/stats', bearer(key));
      await api.raw(`/api/v1/domains?token=${key}&search=ab`, bearer(key));
      // the access log is written once each response has finished: wait for the second request's line
      await until('the access log has both requests', () => api.logLines.some((line) => line.includes('token=%5Bredacted%5D')), 30_000);
      const logs = api.logLines.join('\n');
      expect(api.logLines.length).toBeGreaterThan(10);
      expect(logs).not.toContain(key);
      expect(logs).not.toContain(api.apiKey);
      expect(logs).not.toMatch(/Bearer|dix_(live|test)_[0-9A-Za-z]{10}/);
      expect(logs).toContain('token=%5Bredacted%5D');
    });
  });
}
