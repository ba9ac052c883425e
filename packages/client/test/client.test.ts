import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortError,
  AuthenticationError,
  ConnectionError,
  DomainIndex,
  DomainIndexError,
  InvalidRequestError,
  NotFoundError,
  type Domain,
} from '../src';
import { startLiveApi, type LiveApi } from './support/live-api';

describe('the client against a live API', () => {
  let api: LiveApi;
  let client: DomainIndex;
  /** Counts the HTTP requests a client sends. */
  const counting = () => {
    let count = 0;
    const fetchCounting: typeof fetch = (input, init) => {
      count += 1;
      return fetch(input, init);
    };
    return { fetch: fetchCounting, count: () => count };
  };
  const key = (d: Domain) => `${d.source}/${d.domain_name}`;

  beforeAll(async () => {
    api = await startLiveApi();
    client = new DomainIndex({ apiKey: api.apiKey, baseUrl: api.baseUrl });
  }, 120_000);
  afterAll(async () => {
    await api.stop();
  });

  it('refuses to start without a key, and reads DOMAIN_INDEX_API_KEY by default', () => {
    const saved = process.env.DOMAIN_INDEX_API_KEY;
    delete process.env.DOMAIN_INDEX_API_KEY;
    expect(() => new DomainIndex({ baseUrl: api.baseUrl })).toThrow(/missing API key/);
    process.env.DOMAIN_INDEX_API_KEY = api.apiKey;
    expect(() => new DomainIndex({ baseUrl: api.baseUrl })).not.toThrow();
    if (saved === undefined) delete process.env.DOMAIN_INDEX_API_KEY;
    else process.env.DOMAIN_INDEX_API_KEY = saved;
  });

  it('searches one page with typed parameters and a typed page', async () => {
    const page = await client.domains.list({ status: 'all', sort: 'current_bid', order: 'desc', limit: 15, no_hyphens: true });
    expect(page.data).toHaveLength(15);
    expect(page.data.every((d) => !d.has_hyphens)).toBe(true);
    expect(page.pagination).toMatchObject({ page_size: 15, page_index: 0, has_more: true });
    expect(page.total.value).toBeGreaterThan(15);
    expect(page.meta.api_version).toBe('v1');
    const bids = page.data.map((d) => d.current_bid ?? -1);
    expect(bids).toEqual([...bids].sort((a, b) => b - a));
  });

  it('iterates several hundred rows across pages, equal to the same query read in large pages', async () => {
    const params = { status: 'all' as const, search: 'ar', sort: 'domain_name' as const };
    const small: string[] = [];
    for await (const domain of client.domains.list({ ...params, limit: 25 })) small.push(key(domain));
    const large: string[] = [];
    for await (const page of client.domains.list({ ...params, limit: 200 }).iterPages()) large.push(...page.data.map(key));
    expect(small.length).toBeGreaterThan(300);
    expect(small).toEqual(large);
  });

  it('stops on break without a further request', async () => {
    const counter = counting();
    const limited = new DomainIndex({ apiKey: api.apiKey, baseUrl: api.baseUrl, fetch: counter.fetch });
    let seen = 0;
    for await (const _domain of limited.domains.list({ status: 'all', limit: 10 })) {
      seen += 1;
      if (seen === 15) break;
    }
    expect(seen).toBe(15);
    expect(counter.count()).toBe(2);
  });

  it('bounds a walk with maxItems and maxPages', async () => {
    const counter = counting();
    const limited = new DomainIndex({ apiKey: api.apiKey, baseUrl: api.baseUrl, fetch: counter.fetch });
    const rows: Domain[] = [];
    for await (const domain of limited.domains.list({ status: 'all', limit: 10 }, { maxItems: 23 })) rows.push(domain);
    expect(rows).toHaveLength(23);
    expect(counter.count()).toBe(3);
    let pages = 0;
    for await (const _page of limited.domains.list({ status: 'all', limit: 10 }, { maxPages: 4 }).iterPages()) pages += 1;
    expect(pages).toBe(4);
  });

  it('cancels a walk in flight with an AbortSignal', async () => {
    const counter = counting();
    const limited = new DomainIndex({ apiKey: api.apiKey, baseUrl: api.baseUrl, fetch: counter.fetch });
    const controller = new AbortController();
    let seen = 0;
    const walk = (async () => {
      for await (const _domain of limited.domains.list({ status: 'all', limit: 10 }, { signal: controller.signal })) {
        seen += 1;
        if (seen === 10) controller.abort();
      }
    })();
    await expect(walk).rejects.toBeInstanceOf(AbortError);
    expect(seen).toBe(10);
    expect(counter.count()).toBe(1);
  });

  it('exports every row of a search as a stream and as parsed rows, in the search order', async () => {
    const params = { status: 'all', tld: 'com', max_length: 7, sort: 'current_bid' } as const;
    const walked: Domain[] = [];
    for await (const domain of client.domains.list({ ...params, limit: 200 }, { maxItems: 5_000 })) walked.push(domain);
    expect(walked.length).toBeGreaterThan(50);
    const rows: Domain[] = [];
    for await (const domain of client.domains.exportRows(params)) rows.push(domain);
    expect(rows).toEqual(walked);
    const csv = await new Response(await client.domains.export({ ...params, format: 'csv' })).text();
    const lines = csv.split('\r\n');
    expect(lines[0]!.startsWith('domain_name,tld,status,source,')).toBe(true);
    expect(lines.at(-1)).toBe('');
    expect(lines.length - 2).toBe(walked.length);
    // a Node Readable, for pipeline() into a file
    const chunks: Buffer[] = [];
    for await (const chunk of Readable.fromWeb((await client.domains.export({ ...params, format: 'jsonl' })) as NodeReadableStream<Uint8Array>)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString('utf8').split('\n').length - 1).toBe(walked.length);
  });

  it('types a bad export parameter as an invalid request naming it', async () => {
    const error = await client.domains.export({ format: 'xlsx' as 'csv' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ code: 'invalid_parameter', param: 'format' });
  });

  it('looks one domain up, and types the not-found and invalid answers', async () => {
    const [first] = (await client.domains.list({ limit: 10 })).data;
    const domain = await client.domains.get(first!.domain_name.toUpperCase());
    expect(domain.domain_name).toBe(first!.domain_name);
    const missing = await client.domains.get('never-listed-here.com').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'domain_not_found' });
    expect((missing as NotFoundError).requestId).toMatch(/^req_/);
    const invalid = await client.domains.get('not_a_domain').catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_domain' });
  });

  it('reads the stats', async () => {
    const stats = await client.stats();
    expect(stats.total).toBeGreaterThanOrEqual(stats.retrievable);
    expect(stats.retrievable).toBeGreaterThanOrEqual(stats.live);
    expect(Object.keys(stats.by_status)).toEqual(['auction', 'dropping', 'available']);
    expect(stats.meta.counts).toMatch(/concurrently/);
  });

  it('types parameter errors with the parameter, and never retries them', async () => {
    const counter = counting();
    const limited = new DomainIndex({ apiKey: api.apiKey, baseUrl: api.baseUrl, fetch: counter.fetch });
    const error = await limited.domains.list({ min_price: 50, max_price: 10 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter', param: 'max_price' });
    expect((error as InvalidRequestError).headers?.get('x-ratelimit-limit')).toBe('1000');
    expect(counter.count()).toBe(1);
  });

  it('types a bad key as an authentication error', async () => {
    const stranger = new DomainIndex({ apiKey: 'dix_live_notarealkeyatallnotarealkeyatall00', baseUrl: api.baseUrl });
    const error = await stranger.stats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toBeInstanceOf(DomainIndexError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it('types a refused connection, after its retries', async () => {
    const nowhere = new DomainIndex({ apiKey: api.apiKey, baseUrl: 'http://127.0.0.1:9', maxRetries: 1 });
    const error = await nowhere.stats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).status).toBeUndefined();
  });

  it('exposes the rate-limit headers of the latest response', async () => {
    await client.stats();
    const first = client.rateLimit;
    expect(first).toMatchObject({ limit: 1000, windowSeconds: 3600 });
    await client.stats();
    expect(client.rateLimit?.remaining).toBe(first!.remaining! - 1);
    expect(client.rateLimit?.reset).toBeInstanceOf(Date);
  });
});
