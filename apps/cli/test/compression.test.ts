import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { testEngines } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApi } from './support/fixture-api';
import type { RunningApi } from '@domain-index/api/test/support/start-api';

/** A response exactly as sent: headers and the body's bytes, not decoded (fetch would decode). */
function rawGet(api: RunningApi, path: string, acceptEncoding: string | undefined): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${api.apiKey}` };
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
    const req = request(`${api.baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const PAGE = '/api/v1/domains?status=all&limit=200&sort=domain_name';

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`response compression on ${engine}`, () => {
    let api: RunningApi;
    beforeAll(async () => {
      ({ api } = await startFixtureApi(engine));
    });
    afterAll(async () => {
      await api.close();
    });

    it('sends a page gzipped or brotli-compressed when asked, decoding to the very bytes sent uncompressed', async () => {
      const plain = await rawGet(api, PAGE, 'identity');
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(20_000);
      const gzipped = await rawGet(api, PAGE, 'gzip');
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.body.length).toBeLessThan(plain.body.length / 4);
      expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
      const brotli = await rawGet(api, PAGE, 'br');
      expect(brotli.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(brotli.body).equals(plain.body)).toBe(true);
      for (const response of [plain, gzipped, brotli]) expect(response.headers.vary).toMatch(/Accept-Encoding/i);
    });

    it('prefers gzip when both are accepted, and respects q=0', async () => {
      expect((await rawGet(api, PAGE, 'gzip, deflate, br')).headers['content-encoding']).toBe('gzip');
      expect((await rawGet(api, PAGE, 'br, gzip;q=0')).headers['content-encoding']).toBe('br');
    });

    it('sends the body as it is to a client that does not ask, and leaves small bodies alone', async () => {
      const unasked = await rawGet(api, PAGE, undefined);
      expect(unasked.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(unasked.body.toString('utf8'))).toMatchObject({ object: 'list' });
      const error = await rawGet(api, '/api/v1/domains?min_score=abc', 'gzip');
      expect(error.status).toBe(400);
      expect(error.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(error.body.toString('utf8'))).toMatchObject({ error: { code: 'invalid_parameter', param: 'min_score' } });
    });
  });
}
