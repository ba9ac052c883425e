import { gzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import { listings, sourceBatches, sourceSyncs, sql, type Database } from '@domain-index/db';
import { createTestDatabase, type TestDatabase } from '@domain-index/db/testing';
import { parseSources, type SourceConfig } from '@domain-index/indexer';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '@domain-index/runtime/clock';
import { SyncMetrics } from '../src/ops/sync-metrics';
import { syncSource } from '../src/indexing/sync-source';
import { createLogger } from '@domain-index/runtime/logger';
import { auctionRecord } from '@domain-index/test-support/feeds';
import { startFeedServer, type FeedHandler, type FeedServer } from '@domain-index/test-support/feed-server';
import { zipOne } from '@domain-index/test-support/zip';

/** A source as a sources file would declare it, validated the same way. */
function source(id: string, feed: string, extra: Record<string, unknown>): SourceConfig {
  const parsed = parseSources(JSON.stringify([{ id, name: id, everyMinutes: 60, feed, ...extra }]));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.sources[0]!;
}

/** A paginated JSON profile: records under `items`, names and prices. */
const paged = (pagination: Record<string, unknown>) => ({
  container: { type: 'json', records: 'items' },
  pagination: { delayMs: 0, ...pagination },
  status: { constant: 'auction' },
  fields: { domain_name: 'name', current_bid: 'price' },
});

const json = (value: unknown) => ({ status: 200, body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });
const jsonl = (names: string[]) => names.map((name) => JSON.stringify(auctionRecord(name))).join('\n') + '\n';

async function namesOf(database: Database, sourceId: string): Promise<string[]> {
  const rows = await database.rows<{ domain_name: string }>(sql`select domain_name from listings where source = ${sourceId} order by 1`);
  return rows.map((row) => row.domain_name);
}

/** A logger whose every line (debug and up) is kept, to look for what must not be there. */
function capturingLogger() {
  let text = '';
  const logger = createLogger(
    'debug',
    new Writable({
      write: (chunk: Buffer, _e, done) => {
        text += chunk.toString();
        done();
      },
    }),
  );
  return { logger, text: () => text };
}

describe('fetching marketplace feeds', () => {
  let test: TestDatabase;
  const servers: FeedServer[] = [];
  const serve = async (handler: FeedHandler, path = '/feed') => {
    const server = await startFeedServer(handler, path);
    servers.push(server);
    return server;
  };
  const silent = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
  const sync = (config: SourceConfig, options: { logger?: ReturnType<typeof createLogger>; maxAttempts?: number } = {}) =>
    syncSource(config, { database: test.database, clock: systemClock, logger: options.logger ?? silent, backoffMs: 1, maxAttempts: options.maxAttempts ?? 1 });

  beforeAll(async () => {
    test = await createTestDatabase('pglite');
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await test.dispose();
  });
  beforeEach(async () => {
    await test.database.db.delete(listings);
    await test.database.db.delete(sourceSyncs);
    await test.database.db.delete(sourceBatches);
  });

  describe('pagination', () => {
    it('stops where the envelope says there are no more pages, and at an empty page', async () => {
      const pages: Record<string, unknown> = {
        '/feed': { more: true, items: [{ name: 'one.com', price: '1' }] },
        '/p/2': { more: true, items: [{ name: 'two.com', price: '2' }] },
        '/p/3': { more: false, items: [{ name: 'three.com', price: '3' }] },
        '/p/4': { more: false, items: [{ name: 'never.com', price: '4' }] },
      };
      const server = await serve((request) => json(pages[request.url]));
      expect(await sync(source('paged', server.url, { profile: paged({ pageUrl: '/p/{page}', hasMoreField: 'more' }) }))).toMatchObject({ status: 'applied' });
      expect(server.received.map((request) => request.url)).toEqual(['/feed', '/p/2', '/p/3']);
      expect(await namesOf(test.database, 'paged')).toEqual(['one.com', 'three.com', 'two.com']);

      const empty = await serve((request) => json(request.url === '/feed' ? { items: [{ name: 'only.com', price: '1' }] } : { items: [] }));
      expect(await sync(source('empty', empty.url, { profile: paged({ pageUrl: '/p/{page}' }) }))).toMatchObject({ status: 'applied' });
      expect(empty.received.map((request) => request.url)).toEqual(['/feed', '/p/2']);
    });

    it('follows next-page links until there is none, and counts pages up to the page count', async () => {
      const links: Record<string, unknown> = {
        '/feed': { links: { next: '/feed?cursor=b' }, items: [{ name: 'a.com', price: '1' }] },
        '/feed?cursor=b': { links: { next: 'http://127.0.0.1:PORT/feed?cursor=c' }, items: [{ name: 'b.com', price: '1' }] },
        '/feed?cursor=c': { links: { next: null }, items: [{ name: 'c.com', price: '1' }] },
      };
      const linked = await serve((request) => json(JSON.parse(JSON.stringify(links[request.url]).replace('PORT', new URL(linked.url).port))));
      expect(await sync(source('linked', linked.url, { profile: paged({ nextUrlField: 'links.next' }) }))).toMatchObject({ status: 'applied' });
      expect(linked.received.map((request) => request.url)).toEqual(['/feed', '/feed?cursor=b', '/feed?cursor=c']);

      const counted = await serve((request) => {
        const page = request.url === '/feed' ? 1 : Number(/page=(\d+)/.exec(request.url)![1]);
        return json({ meta: { page, pages: 2 }, items: [{ name: `page${page}.com`, price: '1' }] });
      });
      expect(await sync(source('counted', counted.url, { profile: paged({ pageUrl: '/feed?page={page}', pageField: 'meta.page', pageCountField: 'meta.pages' }) }))).toMatchObject({
        status: 'applied',
      });
      expect(counted.received.map((request) => request.url)).toEqual(['/feed', '/feed?page=2']);
      expect(await namesOf(test.database, 'counted')).toEqual(['page1.com', 'page2.com']);
    });

    it('refuses a feed with more pages than the cap and keeps the previous batch', async () => {
      let endless = false;
      const server = await serve((request) => {
        const page = request.url === '/feed' ? 1 : Number(request.url.slice(3));
        return json({ more: endless || page < 2, items: [{ name: `page${page}.com`, price: '1' }] });
      });
      const config = source('capped', server.url, { profile: paged({ pageUrl: '/p/{page}', hasMoreField: 'more', maxPages: 3 }) });
      expect(await sync(config)).toMatchObject({ status: 'applied' });
      expect(await namesOf(test.database, 'capped')).toEqual(['page1.com', 'page2.com']);
      endless = true;
      const before = server.requests;
      const result = await sync(config, { maxAttempts: 3 });
      expect(result).toMatchObject({ status: 'failed', attempts: 1 });
      expect(result.status === 'failed' && result.reason).toBe(
        `${server.url} has more than 3 pages (pagination.maxPages); it was not loaded, as a cut batch would remove the listings of the pages not read`,
      );
      expect(server.requests - before).toBe(3);
      expect(await namesOf(test.database, 'capped')).toEqual(['page1.com', 'page2.com']);
    });
  });

  describe('secrets', () => {
    const KEY = 'k-7Qv9Zt3xLm2Wp8';
    const TOKEN = 'tok/en+with=specials&1';
    const secretsIn = (text: string) => [KEY, TOKEN, encodeURIComponent(TOKEN)].filter((secret) => text.includes(secret));

    it('sends header and query values read from the environment, and never logs or reports them', async () => {
      process.env.DI_TEST_FEED_KEY = KEY;
      process.env.DI_TEST_FEED_TOKEN = TOKEN;
      try {
        const server = await serve((request, index) => {
          const authorised = request.headers['x-api-key'] === KEY && new URL(request.url, 'http://x').searchParams.get('token') === TOKEN;
          if (!authorised) return { status: 401, body: 'who are you' };
          // the first answer fails, echoing the secrets, as a broken server might
          return index === 0 ? { status: 503, body: `busy; you sent ${KEY} and ${TOKEN}` } : { status: 200, body: jsonl(['secret.com']) };
        });
        const config = source('private', server.url, { format: 'jsonl', headers: { 'X-API-Key': 'env:DI_TEST_FEED_KEY' }, query: { token: 'env:DI_TEST_FEED_TOKEN' } });
        const { logger, text } = capturingLogger();
        const result = await sync(config, { logger, maxAttempts: 2 });
        expect(result).toMatchObject({ status: 'applied', attempts: 2 });
        expect(await namesOf(test.database, 'private')).toEqual(['secret.com']);
        expect(text()).toContain('sync attempt failed');
        expect(secretsIn(text())).toEqual([]);
        expect(secretsIn(JSON.stringify(await test.database.db.select().from(sourceSyncs)))).toEqual([]);

        // a server that is gone: the failure names the URL without its query
        await server.close();
        const gone = capturingLogger();
        const failed = await sync(config, { logger: gone.logger });
        expect(failed).toMatchObject({ status: 'failed' });
        expect(failed.status === 'failed' && failed.reason).toMatch(new RegExp(`^cannot fetch ${server.url}: `));
        expect(secretsIn(gone.text())).toEqual([]);
      } finally {
        delete process.env.DI_TEST_FEED_KEY;
        delete process.env.DI_TEST_FEED_TOKEN;
      }
    });

    it('fails a fetch whose secret is not set, naming the variable and nothing else', async () => {
      const server = await serve(() => ({ status: 200, body: jsonl(['x.com']) }));
      const result = await sync(source('unset', server.url, { format: 'jsonl', headers: { Authorization: 'env:DI_TEST_NOT_SET' } }), { maxAttempts: 3 });
      expect(result).toEqual({ status: 'failed', attempts: 1, reason: 'header Authorization of source unset is read from the environment variable DI_TEST_NOT_SET, which is not set' });
      expect(server.requests).toBe(0);
    });
  });

  describe('conditional GET', () => {
    it('skips a feed whose ETag has not changed, without a batch switch, and loads it when it changes', async () => {
      let version = 1;
      const server = await serve((request) => {
        const etag = `"v${version}"`;
        if (request.headers['if-none-match'] === etag) return { status: 304, body: '' };
        return { status: 200, body: jsonl(version === 1 ? ['first.com', 'second.com'] : ['third.com']), headers: { etag } };
      });
      const config = source('etagged', server.url, { format: 'jsonl' });
      expect(await sync(config)).toMatchObject({ status: 'applied' });
      const [applied] = await test.database.db.select().from(sourceBatches);
      const updatedAt = await test.database.rows(sql`select domain_name, updated_at from listings order by 1`);

      const again = await sync(config);
      expect(again).toEqual({ status: 'unchanged', attempts: 1, reason: 'the server answered 304 Not Modified to the ETag of the applied batch' });
      expect(server.received[1]!.headers['if-none-match']).toBe('"v1"');
      expect(await test.database.db.select().from(sourceBatches)).toEqual([applied]);
      expect(await test.database.rows(sql`select domain_name, updated_at from listings order by 1`)).toEqual(updatedAt);
      const [sync2] = await test.database.db.select().from(sourceSyncs);
      expect(sync2).toMatchObject({ lastOutcome: 'unchanged', consecutiveFailures: 0 });
      // the worker's metrics count it as an unchanged feed and a success, not a batch
      const metrics = new SyncMetrics(new Registry());
      metrics.record('etagged', again, new Date('2026-11-24T12:00:00.000Z'));
      expect((await metrics.feedsUnchanged.get()).values).toEqual([{ value: 1, labels: { source: 'etagged' } }]);
      expect((await metrics.lastSuccess.get()).values).toEqual([{ value: 1_795_521_600, labels: { source: 'etagged' } }]);
      expect((await metrics.batches.get()).values).toEqual([]);

      version = 2;
      expect(await sync(config)).toMatchObject({ status: 'applied', summary: { inserted: 1, removed: 2 } });
      expect(await namesOf(test.database, 'etagged')).toEqual(['third.com']);
    });

    it('skips a feed by its content hash when the server sends no validators, unless the source reads it differently now', async () => {
      const zip = await zipOne('feed.json', Buffer.from(JSON.stringify({ data: [{ name: 'hashed.com', price: '$5' }] })));
      const server = await serve((request) => ({ status: 200, body: request.headers['if-none-match'] === undefined ? zip : Buffer.alloc(0) }));
      const profile = { container: { type: 'json', records: 'data' }, status: { constant: 'auction' }, fields: { domain_name: 'name', current_bid: 'price' } };
      const config = source('hashed', server.url, { profile });
      expect(await sync(config)).toMatchObject({ status: 'applied' });
      expect(await sync(config)).toEqual({ status: 'unchanged', attempts: 1, reason: "the feed's content hash is the applied batch's" });
      expect(server.received.every((request) => request.headers['if-none-match'] === undefined && request.headers['if-modified-since'] === undefined)).toBe(true);
      // another mapping of the same bytes is another batch
      const remapped = source('hashed', server.url, { profile: { ...profile, status: { constant: 'available' } } });
      expect(await sync(remapped)).toMatchObject({ status: 'applied', summary: { updated: 1 } });
    });
  });

  describe('a renamed field', () => {
    it('rejects a CSV whose header lost a column the profile reads, keeps the index, and says which', async () => {
      const header = 'url,name,startDate,endDate,price,startPrice,renewPrice,bidCount,ahrefsDomainRating,umbrellaRanking,cloudflareRanking,estibotValue,extensionsTaken,keywordSearchCount,registeredDate,lastSoldPrice,lastSoldYear,isPartnerSale,semrushAScore,majesticCitation,ahrefsBacklinks,semrushBacklinks,majesticBacklinks,majesticTrustFlow,goValue';
      const row = 'https://www.namecheap.com/market/sale/a/,kept.com,2026-11-23T08:38:08Z,2026-12-15T16:00:00Z,1.00,1.00,13.98,1,0,,,140.00,340,241000,2015-01-15T00:00:00Z,,,1,,,16,,,,1116.00';
      let csv = `${header}\n${row}\n`;
      const server = await serve(() => ({ status: 200, body: gzipSync(csv) }));
      const config = source('renamed', server.url, { profile: 'namecheap-market' });
      expect(await sync(config)).toMatchObject({ status: 'applied' });

      csv = `${header.replace(',price,', ',currentPrice,')}\n${row.replace('kept.com', 'new.com')}\n`;
      const result = await sync(config);
      expect(result).toMatchObject({ status: 'rejected', summary: { outcome: 'rejected', inserted: 0, removed: 0 } });
      expect(result.status === 'rejected' && result.summary.reason).toBe(
        'the feed does not match its profile: the header has no column "price" (renamed?); it has: url, name, startDate, endDate, currentPrice, startPrice, renewPrice, bidCount, ahrefsDomainRating, umbrellaRanking, cloudflareRanking, estibotValue, extensionsTaken, keywordSearchCount, registeredDate, lastSoldPrice, lastSoldYear, isPartnerSale, semrushAScore, majesticCitation, ahrefsBacklinks, semrushBacklinks, majesticBacklinks, majesticTrustFlow, goValue',
      );
      expect(await namesOf(test.database, 'renamed')).toEqual(['kept.com']);
    });

    it('rejects JSON records whose key was renamed, with the reason of each record, and keeps the index', async () => {
      const record = (name: string) => ({ domainName: name, link: `https://www.godaddy.com/domain-auctions/${name}`, auctionType: 'Bid', auctionEndTime: '2026-12-01T17:10:00Z', price: '$10', numberOfBids: 1, domainAge: 2, valuation: '$5' });
      let data: Record<string, unknown>[] = [record('KEPT.COM')];
      const server = await serve(() => ({ status: 200, body: JSON.stringify({ meta: {}, data }) }));
      const config = source('renamed-json', server.url, { profile: 'godaddy-auctions' });
      expect(await sync(config)).toMatchObject({ status: 'applied' });

      data = ['ONE.COM', 'TWO.COM'].map((name) => {
        const { domainName, ...rest } = record(name);
        return { ...rest, domain: domainName };
      });
      const result = await sync(config);
      expect(result).toMatchObject({
        status: 'rejected',
        summary: {
          rowsRead: 2,
          rejected: 2,
          rejectedRows: [
            { line: 1, reason: 'missing domain_name' },
            { line: 2, reason: 'missing domain_name' },
          ],
          reason: 'the feed does not match its profile: "domainName" is in no record (renamed?); a field the feed may leave out is marked "optional" in the profile',
        },
      });
      expect(await namesOf(test.database, 'renamed-json')).toEqual(['kept.com']);
    });
  });

  describe('credentials stay with the feed\'s origin', () => {
    const KEY = 'k-9Hn2Rw5Yq8Lc4Tz';
    beforeAll(() => {
      process.env.DI_TEST_ORIGIN_KEY = KEY;
    });
    afterAll(() => {
      delete process.env.DI_TEST_ORIGIN_KEY;
    });
    const credentialsIn = (server: FeedServer) => server.received.filter((request) => request.headers['x-api-key'] !== undefined || request.url.includes('token='));

    it('follows a redirect to another host without the source\'s headers or query, and keeps them on its own host', async () => {
      const cdn = await serve(() => ({ status: 200, body: jsonl(['moved.com']) }), '/file.jsonl');
      const marketplace = await serve((request) => {
        if (request.url.startsWith('/feed')) return { status: 302, body: '', headers: { location: '/signed' } };
        return { status: 307, body: '', headers: { location: cdn.url } };
      });
      const config = source('moved', marketplace.url, { format: 'jsonl', headers: { 'X-API-Key': 'env:DI_TEST_ORIGIN_KEY' }, query: { token: 'env:DI_TEST_ORIGIN_KEY' } });
      expect(await sync(config)).toMatchObject({ status: 'applied' });
      expect(await namesOf(test.database, 'moved')).toEqual(['moved.com']);
      // its own host had the key on both hops (the query only where the source's URL was used)
      expect(marketplace.received.map((request) => request.headers['x-api-key'])).toEqual([KEY, KEY]);
      expect(marketplace.received[0]!.url).toBe(`/feed?token=${KEY}`);
      expect(cdn.received).toHaveLength(1);
      expect(credentialsIn(cdn)).toEqual([]);
      expect(cdn.received[0]!.headers['user-agent']).toMatch(/^domain-index\//);
    });

    it('sends nothing of the source\'s to a next-page link on another host', async () => {
      const elsewhere = await serve(() => json({ next: null, items: [{ name: 'two.com', price: '2' }] }), '/page2');
      const marketplace = await serve(() => json({ next: elsewhere.url, items: [{ name: 'one.com', price: '1' }] }));
      const config = source('hops', marketplace.url, { profile: paged({ nextUrlField: 'next' }), headers: { 'X-API-Key': 'env:DI_TEST_ORIGIN_KEY' } });
      expect(await sync(config)).toMatchObject({ status: 'applied' });
      expect(await namesOf(test.database, 'hops')).toEqual(['one.com', 'two.com']);
      expect(marketplace.received[0]!.headers['x-api-key']).toBe(KEY);
      expect(credentialsIn(elsewhere)).toEqual([]);
    });

    it('gives up after five redirects, without retrying', async () => {
      const loop = await serve(() => ({ status: 302, body: '', headers: { location: '/feed' } }));
      const result = await sync(source('loop', loop.url, { format: 'jsonl' }), { maxAttempts: 3 });
      expect(result).toEqual({ status: 'failed', attempts: 1, reason: `fetching ${loop.url} was redirected more than 5 times` });
      expect(loop.requests).toBe(6);
    });
  });

  describe('a paginated walk cut short is refused', () => {
    it('fails when a page lacks the field the profile names, or is empty before the declared end, and keeps the index', async () => {
      let renamed = false;
      const server = await serve((request) => {
        if (request.url === '/feed') return json({ more: true, items: [{ name: 'first.com', price: '1' }] });
        return json(renamed ? { hasMore: false, items: [{ name: 'second.com', price: '2' }] } : { more: false, items: [{ name: 'second.com', price: '2' }] });
      });
      const config = source('walk', server.url, { profile: paged({ pageUrl: '/p/{page}', hasMoreField: 'more' }) });
      expect(await sync(config)).toMatchObject({ status: 'applied' });
      renamed = true;
      const result = await sync(config, { maxAttempts: 3 });
      expect(result).toEqual({ status: 'failed', attempts: 1, reason: `page 2 of ${server.url} has no true or false at "more" (renamed?)` });
      expect(await namesOf(test.database, 'walk')).toEqual(['first.com', 'second.com']);

      const counted = await serve((request) => json({ page: request.url === '/feed' ? 1 : 2, pages: 3, items: request.url === '/feed' ? [{ name: 'a.com', price: '1' }] : [] }));
      const cut = await sync(source('cut', counted.url, { profile: paged({ pageUrl: '/p/{page}', pageField: 'page', pageCountField: 'pages' }) }));
      expect(cut).toEqual({ status: 'failed', attempts: 1, reason: `page 2 of ${counted.url} has no records though the envelope says more pages follow` });
      expect(await namesOf(test.database, 'cut')).toEqual([]);
    });
  });

  describe('bounded downloads', () => {
    it('stops a download over maxDownloadBytes, whether the length is announced or not, without retrying', async () => {
      const body = jsonl(Array.from({ length: 200 }, (_, i) => `big${i}.com`));
      const announced = await serve(() => ({ status: 200, body }));
      const result = await sync(source('big', announced.url, { format: 'jsonl', maxDownloadBytes: 1_000 }), { maxAttempts: 3 });
      expect(result).toEqual({ status: 'failed', attempts: 1, reason: `${announced.url} is over the 1000 bytes a download may have (maxDownloadBytes)` });
      // chunked: no Content-Length, so the bytes are counted as they come
      const chunked = await serve(() => ({ status: 200, body, headers: { 'transfer-encoding': 'chunked' } }));
      const streamed = await sync(source('big2', chunked.url, { format: 'jsonl', maxDownloadBytes: 1_000 }), { maxAttempts: 3 });
      expect(streamed).toEqual({ status: 'failed', attempts: 1, reason: `${chunked.url} is over the 1000 bytes a download may have (maxDownloadBytes)` });
      expect(await namesOf(test.database, 'big')).toEqual([]);
      // within the bound it loads
      expect(await sync(source('big3', announced.url, { format: 'jsonl', maxDownloadBytes: 100_000 }))).toMatchObject({ status: 'applied' });
    });
  });

  it('rejects a feed whose archive cannot be opened, without fetching it again, and keeps the index', async () => {
    const good = await zipOne('feed.jsonl', Buffer.from(jsonl(['kept.com'])));
    let truncated = false;
    const server = await serve(() => ({ status: 200, body: truncated ? good.subarray(0, 60) : good, headers: { 'content-type': 'application/zip' } }));
    const config = source('zipped', server.url, { format: 'jsonl' });
    expect(await sync(config)).toMatchObject({ status: 'applied' });
    truncated = true;
    const before = server.requests;
    const result = await sync(config, { maxAttempts: 3 });
    expect(result.status).toBe('rejected');
    expect(result.status === 'rejected' && result.summary.reason).toMatch(/^the feed is unreadable: not a readable zip archive/);
    expect(server.requests - before).toBe(1);
    expect(await namesOf(test.database, 'zipped')).toEqual(['kept.com']);
    const [recorded] = await test.database.db.select().from(sourceSyncs);
    expect(recorded?.lastOutcome).toBe('rejected');
  });

  it('gives up on a server that does not answer within the source timeout', async () => {
    const server = await serve(() => ({ status: 200, body: jsonl(['late.com']), delayMs: 1_000 }));
    const result = await sync(source('slow', server.url, { format: 'jsonl', timeouts: { responseMs: 100 } }));
    expect(result).toEqual({ status: 'failed', attempts: 1, reason: `cannot fetch ${server.url}: no response within 100 ms` });
  });
});
