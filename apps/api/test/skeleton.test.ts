import { errorEnvelopeSchema } from '@domain-index/contract';
import { testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '@domain-index/test-support/waiting';
import { startApi, type RunningApi } from './support/start-api';

const engines = testEngines();

for (const { engine, skip } of engines) {
  describe.skipIf(skip)(`API skeleton on ${engine}`, () => {
    let api: RunningApi;
    let failing: RunningApi;
    beforeAll(async () => {
      api = await startApi(engine);
      // A clock that throws stands for any unexpected failure inside a handler.
      failing = await startApi(engine, {
        test: api.test,
        clock: {
          now() {
            throw new Error('boom: select * from listings where secret = 1');
          },
        },
      });
    });
    afterAll(async () => {
      await failing.close();
      await api.close();
    });

    it('answers an unknown path under /api/v1 with 404 not_found in the error envelope', async () => {
      const response = await api.get('/api/v1/domain');
      expect(response.status).toBe(404);
      const body: unknown = await response.json();
      expect(errorEnvelopeSchema.parse(body).error.code).toBe('not_found');
      expect(await (await api.get('/elsewhere')).json()).toMatchObject({ error: { code: 'not_found' } });
    });

    it('answers other methods on an endpoint with 405 method_not_allowed and Allow', async () => {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const response = await api.get('/api/v1/domains', { method });
        expect(response.status, method).toBe(405);
        expect(response.headers.get('allow')).toBe('GET, HEAD');
        expect(await response.json()).toEqual({
          error: { code: 'method_not_allowed', message: `${method} is not allowed here; use GET` },
        });
      }
      const lookup = await api.get('/api/v1/domains/example.com', { method: 'DELETE' });
      expect(lookup.status).toBe(405);
    });

    it('sends no CORS header on a GET or on a preflight', async () => {
      const headers = { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' };
      const preflight = await api.get('/api/v1/domains', { method: 'OPTIONS', headers });
      const get = await api.get('/api/v1/stats', { headers: { Origin: 'https://evil.example' } });
      expect(preflight.status).toBe(405);
      for (const response of [preflight, get]) {
        const cors = [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
        expect(cors).toEqual([]);
      }
    });

    it('answers an unexpected failure with 500 internal_error, Retry-After and no internals', async () => {
      const response = await failing.get('/api/v1/stats');
      expect(response.status).toBe(500);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        error: { code: 'internal_error', message: 'an unexpected error occurred; it has been logged, please retry' },
      });
      expect(text).not.toMatch(/select|boom|stack|at /i);
      // the operator still gets the detail in the log
      expect(failing.logLines.some((line) => line.includes('boom'))).toBe(true);
    });

    it('puts X-Request-Id on every response and echoes a well-formed incoming one', async () => {
      for (const path of ['/api/v1/stats', '/api/v1/nope', '/api/v1/domains/not_a_domain']) {
        expect((await api.get(path)).headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
      }
      const echoed = await api.get('/api/v1/stats', { headers: { 'X-Request-Id': 'client-trace-1234' } });
      expect(echoed.headers.get('x-request-id')).toBe('client-trace-1234');
      const unsafe = await api.get('/api/v1/stats', { headers: { 'X-Request-Id': 'a b<script>' } });
      expect(unsafe.headers.get('x-request-id')).toMatch(/^req_/);
    });

    it('writes one access-log line per request: id, method, URL, status, time; errors at error level', async () => {
      const linesOf = (source: RunningApi, id: string) =>
        source.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => (line.req as { id?: string } | undefined)?.id === id);
      await api.get('/api/v1/domains?search=ab&limit=2', { headers: { 'X-Request-Id': 'access-log-ok-1' } });
      await api.get('/api/v1/nope', { headers: { 'X-Request-Id': 'access-log-404-1' } });
      await failing.get('/api/v1/stats', { headers: { 'X-Request-Id': 'access-log-500-1' } });
      // each line is written once its response has finished, which may be after the client has it
      const logged = (source: RunningApi, id: string) => linesOf(source, id).some((line) => line.res !== undefined);
      await until('the three requests are logged', () => logged(api, 'access-log-ok-1') && logged(api, 'access-log-404-1') && logged(failing, 'access-log-500-1'), 30_000);

      const ok = linesOf(api, 'access-log-ok-1');
      expect(ok).toHaveLength(1);
      expect(ok[0]).toMatchObject({
        level: 30,
        msg: 'request completed',
        req: { id: 'access-log-ok-1', method: 'GET', url: '/api/v1/domains?search=ab&limit=2' },
        res: { statusCode: 200 },
      });
      expect(ok[0]!.responseTime).toEqual(expect.any(Number));
      expect(linesOf(api, 'access-log-404-1')).toMatchObject([{ level: 30, res: { statusCode: 404 } }]);
      expect(linesOf(failing, 'access-log-500-1')).toMatchObject([{ level: 50, res: { statusCode: 500 } }]);
    });

    it('has no X-Powered-By header', async () => {
      expect((await api.get('/api/v1/stats')).headers.get('x-powered-by')).toBeNull();
    });
  });
}
